package targets_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/idemspec/idemspec/targets"
)

// hostileAPI answers a setup, a list and deletes with the values it is
// given, and records what it was sent (the request line as written).
type hostileAPI struct {
	parentID, itemID, note string
	mu                     sync.Mutex
	seen                   []string
	bodies                 []string
}

func (a *hostileAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	a.mu.Lock()
	a.seen = append(a.seen, r.Method+" "+r.RequestURI)
	a.bodies = append(a.bodies, string(b))
	a.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch r.Method {
	case http.MethodPost:
		json.NewEncoder(w).Encode(map[string]any{"id": a.parentID, "note": a.note})
	case http.MethodGet:
		json.NewEncoder(w).Encode(map[string]any{"items": []map[string]string{{"id": a.itemID}}})
	default:
		w.WriteHeader(http.StatusNoContent)
	}
}

func (a *hostileAPI) requests() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.seen...)
}

// hostileTarget is hostileFile against api, served by the test.
func hostileTarget(t *testing.T, api *hostileAPI) (*targets.Target, *httptest.Server) {
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	tg, err := targets.Parse("t.yaml", file(strings.Replace(hostileFile, "BASE", srv.URL, 1)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg, srv
}

// render is the create body of marker, sending its setup.
func render(t *testing.T, tg *targets.Target, marker string) []byte {
	body, err := tg.Body(targets.Payload{Marker: marker, Variant: "7"})
	if err != nil {
		t.Fatal(err)
	}
	return body
}

const hostileFile = `
base_url: BASE/api
setup: [{name: order, path: /orders, body: '{"m":"{{.Marker}}","ref":"{{.Key}}"}'}]
create: {path: '/p/{{.Setup.order.id}}', body: '{"m":"{{.Marker}}","v":{{.Variant}},"note":"{{.Setup.order.note}}","n":{{.Setup.order.note}}}', id_field: id}
oracle: {list: {path: '/v1/r?parent={{.Setup.order.id}}&m={{.Marker}}', items: items}}
cleanup: {delete: {path: '/v1/r/{{.ID}}'}}
`

// Values the target answers (a setup answer's field, a listed id) stay
// where the file puts them: a path segment is escaped as one segment, a
// query value as one value, a JSON body's value as one JSON value. Copied
// raw, the probe's answers would send POST
// /api/p/../../../admin/drop?all=1 and DELETE
// /api/v1/r/../../../admin/users?all=true, and a quote in a value would
// add members to the body.
func TestAnsweredValuesStayInTheirPlace(t *testing.T) {
	api := &hostileAPI{
		parentID: "../../../admin/drop?all=1#",
		itemID:   "../../../admin/users?all=true",
		note:     `x","v":999,"admin":true,"y":"`,
	}
	tg, _ := hostileTarget(t, api)
	marker := targets.NewMarker("0a1b2c3d", "S1", 1)
	body := render(t, tg, marker)
	// The body is one JSON object with the members the file wrote, each
	// value the answer's value.
	dec := json.NewDecoder(strings.NewReader(string(body)))
	var members []string
	if _, err := dec.Token(); err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatalf("body %s: %v", body, err)
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("body %s: %v", body, err)
		}
		members = append(members, k.(string))
		if (k == "note" || k == "n") && v != api.note {
			t.Errorf("body %s: %s is %v, want the answer's value", body, k, v)
		}
	}
	if strings.Join(members, ",") != "m,v,note,n" {
		t.Errorf("body %s has the members %v, want m,v,note,n", body, members)
	}
	req, err := tg.NewCreate(context.Background(), "k", body)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := req.URL.RequestURI(), "/api/p/..%2F..%2F..%2Fadmin%2Fdrop%3Fall=1%23"; got != want {
		t.Errorf("create sent to %s, want %s (one segment under /api/p)", got, want)
	}
	if _, err := tg.RunCleanup(context.Background(), "0a1b2c3d", []string{marker}, tg.Oracle.Observe); err != nil {
		t.Fatal(err)
	}
	seen := api.requests()
	want := []string{
		"POST /api/orders",
		"GET /api/v1/r?parent=..%2F..%2F..%2Fadmin%2Fdrop%3Fall%3D1%23&m=" + marker,
		"DELETE /api/v1/r/..%2F..%2F..%2Fadmin%2Fusers%3Fall=true",
	}
	if strings.Join(seen, "\n") != strings.Join(want, "\n") {
		t.Errorf("the API saw\n%s\nwant\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
}

// A value that is a whole dot segment would still move the path once
// escaped (.. needs no escaping): a request whose path would leave
// base_url's path, or name another resource, is refused, saying why; so
// is such a path written in the file.
func TestDotSegmentsAreRefused(t *testing.T) {
	api := &hostileAPI{parentID: "..", itemID: "."}
	tg, srv := hostileTarget(t, api)
	marker := targets.NewMarker("0a1b2c3d", "S1", 1)
	body := render(t, tg, marker)
	if _, err := tg.NewCreate(context.Background(), "k", body); err == nil || !strings.Contains(err.Error(), `create.path: "/p/.." has the segment "..": refused, it would leave base_url's path`) {
		t.Errorf("create under a parent ..: %v", err)
	}
	api.parentID = "o1"
	second := targets.NewMarker("0a1b2c3d", "S1", 2)
	render(t, tg, second)
	if _, err := tg.RunCleanup(context.Background(), "0a1b2c3d", []string{second}, tg.Oracle.Observe); err == nil || !strings.Contains(err.Error(), `cleanup.delete.path: "/v1/r/." has the segment "."`) {
		t.Errorf("cleanup of an item .: %v", err)
	}
	for _, seen := range api.requests() {
		if strings.HasPrefix(seen, "DELETE") || strings.Contains(seen, "/p/") {
			t.Errorf("sent %s", seen)
		}
	}
	written := strings.Replace(hostileFile, "/v1/r/{{.ID}}", "/v1/../r/{{.ID}}", 1)
	if _, err := targets.Parse("t.yaml", file(strings.Replace(written, "BASE", srv.URL, 1))); err == nil || !strings.Contains(err.Error(), `t.yaml:5: cleanup.delete.path: "/v1/../r/idemspec-id-probe" has the segment ".."`) {
		t.Errorf("a written ..: %v", err)
	}
}

// The lookup and field oracles render answered values through the same
// escaping: an id a create answered, a parent's id from setup.
func TestOraclePathsEscapeAnsweredValues(t *testing.T) {
	api := &hostileAPI{parentID: "../admin?all=1"}
	srv := httptest.NewServer(api)
	defer srv.Close()
	field, err := targets.Parse("t.yaml", file(`
base_url: `+srv.URL+`/api
setup: [{name: order, path: /orders}]
create: {path: '/orders/{{.Setup.order.id}}/c', body: '{"m":"{{.Marker}}","v":{{.Variant}}}', id_field: id}
oracle: {field: {path: '/orders/{{.Setup.order.id}}', field: n}}
`))
	if err != nil {
		t.Fatal(err)
	}
	defer field.Close()
	field.Oracle.Observe(context.Background(), targets.NewMarker("0a1b2c3d", "S1", 1))
	lookup, err := targets.Parse("t.yaml", file(`
base_url: `+srv.URL+`/api
create: {path: /r, body: '{"m":"{{.Marker}}","v":{{.Variant}}}', id_field: id}
oracle: {lookup: {path: '/r/{{.ID}}'}}
`))
	if err != nil {
		t.Fatal(err)
	}
	defer lookup.Close()
	lookup.Oracle.(*targets.LookupOracle).ObserveIDs(context.Background(), "m", []string{"../../admin/users?all=true"})
	want := []string{"POST /api/orders", "GET /api/orders/..%2Fadmin%3Fall=1", "GET /api/r/..%2F..%2Fadmin%2Fusers%3Fall=true"}
	if got := api.requests(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the API saw\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
