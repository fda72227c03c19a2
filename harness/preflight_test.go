package harness_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/targets"
)

// A target that answers is not "not reachable": a CRLF in a setup
// answer's value, which no header can carry, is reported as what it is
// (it was "target ... is not reachable"); a target that does not answer
// still is.
func TestPreflightSaysWhatFailed(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"id":"o1","team":"a\r\nX-Evil: 1","items":[]}`)
	}))
	defer srv.Close()
	preflight := func(base string) error {
		target, err := targets.Parse("t.yaml", []byte(`base_url: `+base+`
setup:
  - {name: order, path: /orders}
  - {name: line, path: /lines, headers: {X-Team: '{{.Setup.order.team}}'}}
create: {path: '/orders/{{.Setup.order.id}}/c', body: '{"m":"{{.Marker}}","v":{{.Variant}}}', id_field: id}
oracle: {list: {path: '/c?m={{.Marker}}', items: items}}
`))
		if err != nil {
			t.Fatal(err)
		}
		defer target.Close()
		env, err := harness.New(target, harness.DefaultSettings())
		if err != nil {
			t.Fatal(err)
		}
		defer env.Close()
		return env.Preflight(context.Background())
	}
	err := preflight(srv.URL)
	if err == nil || strings.Contains(err.Error(), "not reachable") || !strings.Contains(err.Error(), "setup[1].headers.X-Team: the value of X-Team holds a control character (CR, LF or NUL)") {
		t.Errorf("a CRLF from a setup answer: %v", err)
	}
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	if err := preflight(down.URL); err == nil || !strings.Contains(err.Error(), "is not reachable") {
		t.Errorf("a target that is down: %v", err)
	}
}
