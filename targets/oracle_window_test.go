package targets_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/idemspec/idemspec/targets"
)

// A list that requires a window of times (Adyen's createdSince and
// createdUntil) reads one around the reading: {{.Since}} a day before,
// {{.Until}} a day after, in RFC 3339.
func TestListPathTakesAWindowAroundTheReading(t *testing.T) {
	var got [2]string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = [2]string{r.URL.Query().Get("createdSince"), r.URL.Query().Get("createdUntil")}
		io.WriteString(w, `{"data":[]}`)
	}))
	defer srv.Close()
	tg, err := targets.Parse("t.yaml", []byte(`base_url: `+srv.URL+`
create: {path: /r, body: '{"m":"{{.Marker}}","v":{{.Variant}}}', id_field: id}
oracle: {list: {path: '/r?reference={{.Marker}}&createdSince={{.Since}}&createdUntil={{.Until}}', items: data}}
`))
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	before := time.Now()
	if _, err := tg.Oracle.Observe(context.Background(), "idemspec-0123abcd-S1-1"); err != nil {
		t.Fatal(err)
	}
	since, err1 := time.Parse(time.RFC3339, got[0])
	until, err2 := time.Parse(time.RFC3339, got[1])
	if err1 != nil || err2 != nil || !since.Before(before) || !until.After(time.Now()) || until.Sub(since) != 48*time.Hour {
		t.Errorf("createdSince %q, createdUntil %q: want RFC 3339 times a day each side of the reading", got[0], got[1])
	}
}
