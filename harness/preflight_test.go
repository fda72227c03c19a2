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

// envOf is an Env of the target file text, closed when the test ends.
func envOf(t *testing.T, text string) *harness.Env {
	t.Helper()
	target, err := targets.Parse("t.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { target.Close() })
	env, err := harness.New(target, harness.DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	return env
}

// A target that answers is not "not reachable": a CRLF in a setup
// answer's value, which no header can carry, is reported as what it is,
// not as "target ... is not reachable"; a target that does not answer
// is.
func TestPreflightSaysWhatFailed(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"id":"o1","team":"a\r\nX-Evil: 1","items":[]}`)
	}))
	defer srv.Close()
	preflight := func(base string) error {
		return envOf(t, `base_url: `+base+`
setup:
  - {name: order, path: /orders}
  - {name: line, path: /lines, headers: {X-Team: '{{.Setup.order.team}}'}}
create: {path: '/orders/{{.Setup.order.id}}/c', body: '{"m":"{{.Marker}}","v":{{.Variant}}}', id_field: id}
oracle: {list: {path: '/c?m={{.Marker}}', items: items}}
`).Preflight(context.Background())
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

// An id_field the 2xx answers lack is the file's mistake: the first
// create says so, naming the field; otherwise every check would read no
// id and S1 would FAIL a correct API.
func TestWrongIDFieldIsAConfigurationError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, `{"uuid":"r1"}`)
			return
		}
		io.WriteString(w, `{"items":[]}`)
	}))
	defer srv.Close()
	for field, want := range map[string]string{
		"id":   `create.id_field "id" is not in the target's answer to the harness's first create, a 201: check create.id_field (POST /r answered: "{\"uuid\":\"r1\"}")`,
		"uuid": "",
	} {
		err := envOf(t, `base_url: `+srv.URL+`
create: {path: /r, body: '{"m":"{{.Marker}}","v":{{.Variant}}}', id_field: `+field+`}
oracle: {list: {path: '/r?m={{.Marker}}', items: items}}
`).PreflightCreate(context.Background())
		if (want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("id_field %s: %v, want %q", field, err, want)
		}
	}
}
