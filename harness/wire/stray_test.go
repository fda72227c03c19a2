package wire_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/idemspec/idemspec/harness/wire"
)

// A request the file does not describe is forwarded and recorded; one
// that carries a create's key where the file places it says whose, and
// a JSON body's shape is recorded for every request: a create sent on
// a path the file does not describe is evidence, not silence.
func TestUnmatchedRequestsSayWhatTheyResemble(t *testing.T) {
	a := newAPI(t)
	ip := start(t, a, wire.Config{})
	for _, c := range []struct{ method, path, key, body string }{
		{http.MethodPost, "/v2/charges", "k-1", `{"amount":1,"note":"a"}`},
		{http.MethodPost, "/charges", "", `{"note":"a","amount":1}`},
		{http.MethodGet, "/balance", "k-1", ""},
		{http.MethodPost, "/x/../charges", "k-2", `{"amount":1,"note":"a"}`},
	} {
		if _, err := program(t, context.Background(), c.method, ip.URL()+c.path, c.key, c.body); err != nil {
			t.Fatal(err)
		}
	}
	xs := ip.Record().Exchanges()
	if x := xs[0]; x.Operation != "" || x.Resembles != "charge" || x.Shape != "amount,note" || !x.Forwarded {
		t.Errorf("a keyed POST outside the base path: %+v", x)
	}
	if x := xs[1]; x.Resembles != "" || x.Shape != "amount,note" {
		t.Errorf("an unkeyed POST: resembles %q, shape %q", x.Resembles, x.Shape)
	}
	if x := xs[2]; x.Resembles != "" {
		t.Errorf("a GET carrying a key resembles %q: only the create's method does", x.Resembles)
	}
	if x := xs[3]; x.Operation != "charge" || x.Kind != "create" || x.Key != "k-2" {
		t.Errorf("a create on a path with dot segments was not matched: %+v", x)
	}
}
