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

// An id_field that reads no id, the marker, or another id than the one
// the oracle lists is the file's mistake: the first create says so,
// naming the field and the one that holds the listed id; otherwise every
// check would judge the wrong field and FAIL a correct API.
func TestWrongIDFieldIsAConfigurationError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			w.WriteHeader(http.StatusCreated)
			// The marker echoed back as a reference, as Adyen's
			// merchantReference is; the id is pspReference.
			marker := strings.TrimSuffix(strings.TrimPrefix(string(body), `{"m":"`), `","v":1}`)
			io.WriteString(w, `{"pspReference":"r1","merchantReference":"`+marker+`","product_id":"p9"}`)
			return
		}
		io.WriteString(w, `{"items":[{"pspReference":"r1","ref":"`+r.URL.Query().Get("m")+`"}]}`)
	}))
	defer srv.Close()
	for field, want := range map[string]string{
		"id":                `create.id_field "id" is not in the target's answer to the harness's first create, a 201; the oracle (list) lists one resource for the marker, "r1": check create.id_field, did you mean "pspReference"? (POST /r answered: `,
		"merchantReference": `create.id_field "merchantReference" reads "`,
		"product_id":        `create.id_field "product_id" reads "p9" from the target's answer to the harness's first create, but the oracle (list) lists one resource for its marker, "r1": check create.id_field, did you mean "pspReference"?`,
		"pspReference":      "",
	} {
		err := envOf(t, `base_url: `+srv.URL+`
create: {path: /r, body: '{"m":"{{.Marker}}","v":{{.Variant}}}', id_field: `+field+`}
oracle: {list: {path: '/r?m={{.Marker}}', items: items, id_field: pspReference}}
`).PreflightCreate(context.Background())
		if (want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("id_field %s: %v, want %q", field, err, want)
		}
		if field == "merchantReference" && (err == nil || !strings.Contains(err.Error(), `that is the marker the harness sent`) || !strings.Contains(err.Error(), `did you mean "pspReference"?`)) {
			t.Errorf("id_field %s: %v, want the marker named and pspReference suggested", field, err)
		}
	}
}

// With an oracle that looks ids up, an id_field whose value it never
// finds is the file's mistake too; the answer's values it does find
// name the field to use.
func TestWrongIDFieldWithALookupOracle(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost:
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, `{"pspReference":"r1","product_id":"p9"}`)
		case r.URL.Path == "/r/r1":
			io.WriteString(w, `{"pspReference":"r1"}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	for field, want := range map[string]string{
		"product_id":   `create.id_field "product_id" reads "p9" from the target's answer to the harness's first create, but the oracle (lookup) finds no resource carrying its marker at that id: check create.id_field, did you mean "pspReference"?`,
		"pspReference": "",
	} {
		err := envOf(t, `base_url: `+srv.URL+`
create: {path: /r, body: '{"m":"{{.Marker}}","v":{{.Variant}}}', id_field: `+field+`}
oracle: {lookup: {path: '/r/{{.ID}}'}}
`).PreflightCreate(context.Background())
		if (want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("id_field %s: %v, want %q", field, err, want)
		}
	}
}

// A target that refuses the credentials (401, 403) is told to check
// headers:, not the path and body, which are not at fault; any other
// 4xx still names create.path/body.
func TestPreflightNamesRefusedCredentials(t *testing.T) {
	for status, want := range map[int]string{
		http.StatusUnauthorized: "the target refused the credentials: check headers: and the variables they read (POST /r answered 401",
		http.StatusForbidden:    "the target refused the credentials: check headers: and the variables they read (POST /r answered 403",
		http.StatusNotFound:     "the target refused the create itself: check create.path/body (POST /r answered 404",
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(status) }))
		err := envOf(t, `base_url: `+srv.URL+`
create: {path: /r, body: '{"m":"{{.Marker}}","v":{{.Variant}}}', id_field: id}
oracle: {list: {path: '/r?m={{.Marker}}', items: items}}
`).PreflightCreate(context.Background())
		srv.Close()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%d: %v, want %q", status, err, want)
		}
	}
}
