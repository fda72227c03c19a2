package targets_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/idemspec/idemspec/targets"
)

const setupBase = `
base_url: http://127.0.0.1:1
setup:
  - name: order
    path: /orders
    body: '{"m":"{{.Marker}}"}'
  - name: line
    path: /orders/{{.Setup.order.id}}/lines
create: {path: '/orders/{{.Setup.order.id}}/capture', body: '{"m":"{{.Marker}}","v":{{.Variant}},"line":"{{.Setup.line.data.id}}"}', id_field: id}
oracle:
  list: {path: '/orders/{{.Setup.order.id}}/captures?m={{.Marker}}', items: items}
`

// A template names only setup requests that answer before it, each as
// {{.Setup.NAME.FIELD}}, and every error names the file, line and field.
func TestSetupIsCheckedAtLoad(t *testing.T) {
	if _, err := targets.Parse("t.yaml", file(setupBase)); err != nil {
		t.Fatalf("a valid setup: %v", err)
	}
	for _, c := range []struct{ from, to, want string }{
		{"/orders/{{.Setup.order.id}}/capture", "/orders/{{.Setup.nope.id}}/capture", `t.yaml:8: create.path: {{.Setup.nope.id}}: no setup request "nope" answers before this (known: order, line)`},
		{"/orders/{{.Setup.order.id}}/lines", "/orders/{{.Setup.line.id}}/lines", `t.yaml:7: setup[1].path: {{.Setup.line.id}}: no setup request "line" answers before this (known: order)`},
		{"'/orders/{{.Setup.order.id}}/captures?m=", "'/orders/{{.Setup.order}}/captures?m=", `t.yaml:10: oracle.list.path: {{.Setup.order}}: name a setup request and a field of its answer`},
		{"name: line", "name: order", `t.yaml:6: setup[1].name: "order" names a setup request already`},
		{"name: line", "name: 2nd", `t.yaml:6: setup[1].name: "2nd" is not a setup name`},
		{"    path: /orders\n", "    path: https://elsewhere.example/orders\n", `t.yaml:4: setup[0].path:`},
		{"    body: '{\"m\":\"{{.Marker}}\"}'", "    body: '{{.Variant}}'", `t.yaml:5: setup[0].body: {{.Variant}} is not known here (known: {{.Marker}}, {{.Key}}, {{.Setup.NAME.FIELD}} of an earlier setup request)`},
	} {
		text := strings.Replace(setupBase, c.from, c.to, 1)
		if text == setupBase {
			t.Fatalf("the case %q changes nothing", c.from)
		}
		if _, err := targets.Parse("t.yaml", file(text)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s -> %s: error %v, want %q", c.from, c.to, err, c.want)
		}
	}
	noSetup := `
base_url: http://127.0.0.1:1
create: {path: '/orders/{{.Setup.order.id}}/capture', body: '{"m":"{{.Marker}}","v":{{.Variant}}}', id_field: id}
oracle: {list: {path: '/c?m={{.Marker}}'}}
`
	if _, err := targets.Parse("t.yaml", file(noSetup)); err == nil || !strings.Contains(err.Error(), `t.yaml:2: create.path: {{.Setup.order.id}}: no setup request "order" answers before this (known: none: declare it under setup:)`) {
		t.Errorf("setup used without setup: %v", err)
	}
	ops := `
base_url: http://127.0.0.1:1
oracle: {list: {path: '/c?m={{.Marker}}'}}
operations:
  - name: capture
    setup: [{name: order, path: /orders}, {name: order, path: /orders}]
    create: {path: '/orders/{{.Setup.order.id}}/capture', body: '{"m":"{{.Marker}}","v":{{.Variant}}}', id_field: id}
`
	if _, err := targets.Parse("t.yaml", file(ops)); err == nil || !strings.Contains(err.Error(), `t.yaml:5: operations[0].setup[1].name: "order" names a setup request already`) {
		t.Errorf("an operation's setup: %v", err)
	}
}

// orderAPI answers the setup of setupBase: orders and their lines, each
// counted, and captures listed per order.
type orderAPI struct {
	orders, lines atomic.Int32
	keys          sync.Map // the setup keys seen
	fail          atomic.Bool
}

func (a *orderAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/orders":
		if a.fail.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `{"error":"down"}`)
			return
		}
		a.keys.Store(r.Header.Get("Idempotency-Key"), true)
		b, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, `{"id":"o%d","echo":%s}`, a.orders.Add(1), b)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/lines"):
		fmt.Fprintf(w, `{"data":{"id":"l%d"}}`, a.lines.Add(1))
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/captures"):
		json.NewEncoder(w).Encode(map[string]any{"items": []map[string]string{{"id": strings.Split(r.URL.Path, "/")[2] + "-" + r.URL.Query().Get("m")}}})
	default:
		w.WriteHeader(http.StatusNotFound)
	}
}

// Setup runs once per marker, however many creates render and send at
// once, and its answers fill the create's path and body and the oracle's
// path; a failed setup is an error that says which request failed how.
func TestSetupRunsOncePerMarker(t *testing.T) {
	api := &orderAPI{}
	srv := httptest.NewServer(api)
	defer srv.Close()
	text := strings.Replace(setupBase, "http://127.0.0.1:1", srv.URL, 1)
	text = strings.Replace(text, "    body: '{\"m\":\"{{.Marker}}\"}'", "    body: '{\"m\":\"{{.Marker}}\"}'\n    headers: {Idempotency-Key: '{{.Key}}'}", 1)
	tg, err := targets.Parse("t.yaml", file(text))
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	marker := targets.NewMarker("0a1b2c3d", "S1", 1)
	var wg sync.WaitGroup
	bodies := make([][]byte, 8)
	errs := make([]error, 8)
	for i := range bodies {
		wg.Go(func() { bodies[i], errs[i] = tg.Body(targets.Payload{Marker: marker, Variant: "100"}) })
	}
	wg.Wait()
	for i := range bodies {
		if errs[i] != nil || string(bodies[i]) != string(bodies[0]) {
			t.Fatalf("body %d: %s, %v", i, bodies[i], errs[i])
		}
	}
	if got := string(bodies[0]); got != `{"m":"`+marker+`","v":100,"line":"l1"}` {
		t.Errorf("body %s: want the line's id from the second setup's answer", got)
	}
	req, err := tg.NewCreate(context.Background(), "k", bodies[0])
	if err != nil || req.URL.Path != "/orders/o1/capture" {
		t.Fatalf("create %v, %v: want the order's path", req.URL, err)
	}
	obs, err := tg.Oracle.Observe(context.Background(), marker)
	if err != nil || obs.Count != 1 || obs.IDs[0] != "o1-"+marker {
		t.Errorf("observed %+v, %v: want the list of order o1", obs, err)
	}
	if api.orders.Load() != 1 || api.lines.Load() != 1 {
		t.Errorf("%d orders and %d lines made for one marker, want one each", api.orders.Load(), api.lines.Load())
	}
	// Another marker has a parent of its own, made with a fresh key.
	other := targets.NewMarker("0a1b2c3d", "S2", 2)
	if _, err := tg.Oracle.Observe(context.Background(), other); err != nil || api.orders.Load() != 2 {
		t.Errorf("a second marker: %v, %d orders", err, api.orders.Load())
	}
	n := 0
	api.keys.Range(func(k, _ any) bool {
		n++
		if !strings.HasPrefix(k.(string), "0a1b2c3d-") {
			t.Errorf("setup key %q does not carry the run id", k)
		}
		return true
	})
	if n != 2 {
		t.Errorf("%d setup keys for 2 parents", n)
	}
	api.fail.Store(true)
	_, err = tg.Body(targets.Payload{Marker: targets.NewMarker("0a1b2c3d", "S3", 3), Variant: "1"})
	var status targets.StatusError
	if err == nil || !strings.Contains(err.Error(), `setup order: POST /orders answered status 503: {"error":"down"}`) || !errors.As(err, &status) || !status.Transient() {
		t.Errorf("a failing setup: %v, want a transient status error naming the request", err)
	}
}

// oracle.field reads one marker's counter: its path must name the
// marker's object, and anything but a non-negative integer is an error
// that names the field and what it held.
func TestFieldOracleReadsACounter(t *testing.T) {
	counts := map[string]string{"o1": "2", "o2": "1.5", "o3": `"two"`}
	// Marker n makes order o<n>, whose counter is counts["o<n>"].
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			m := r.Header.Get("X-Order")
			fmt.Fprintf(w, `{"id":"o%s"}`, m[strings.LastIndex(m, "-")+1:])
			return
		}
		fmt.Fprintf(w, `{"data":{"captures":%s}}`, counts[strings.TrimPrefix(r.URL.Path, "/orders/")])
	}))
	defer srv.Close()
	text := `
base_url: ` + srv.URL + `
setup: [{name: order, path: /orders, headers: {X-Order: '{{.Marker}}'}}]
create: {path: '/orders/{{.Setup.order.id}}/capture', body: '{"m":"{{.Marker}}","v":{{.Variant}}}', id_field: id}
oracle: {field: {path: '/orders/{{.Setup.order.id}}', field: data.captures}}
`
	tg, err := targets.Parse("t.yaml", file(text))
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if tg.Oracle.Kind() != "field" {
		t.Fatalf("oracle %s", tg.Oracle.Kind())
	}
	if obs, err := tg.Oracle.Observe(context.Background(), targets.NewMarker("0a1b2c3d", "S1", 1)); err != nil || obs.Count != 2 {
		t.Errorf("order o1: %+v, %v: want a count of 2", obs, err)
	}
	for n, want := range map[int64]string{2: "data.captures is 1.5, want a count", 3: `data.captures is two, want a count`} {
		if _, err := tg.Oracle.Observe(context.Background(), targets.NewMarker("0a1b2c3d", "S1", n)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("order o%d: %v, want %q", n, err, want)
		}
	}
	shared := strings.Replace(text, "path: '/orders/{{.Setup.order.id}}', field", "path: /orders/all, field", 1)
	if _, err := targets.Parse("t.yaml", file(shared)); err == nil || !strings.Contains(err.Error(), "t.yaml:4: oracle.field.path: must name one marker's object") {
		t.Errorf("a counter every check shares: %v", err)
	}
	withDelete := text + "cleanup: {delete: {path: '/orders/{{.ID}}'}}\n"
	if _, err := targets.Parse("t.yaml", file(withDelete)); err == nil || !strings.Contains(err.Error(), "with oracle.field use cleanup.command") {
		t.Errorf("a delete cleanup with a count: %v", err)
	}
}

// A delete cleanup may name the parent an action acted on; a marker
// whose setup never ran made nothing, and cleanup sends nothing for it.
func TestCleanupDeletesUnderTheParent(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.Path)
		mu.Unlock()
		switch r.Method {
		case http.MethodPost:
			io.WriteString(w, `{"id":"o1"}`)
		case http.MethodGet:
			io.WriteString(w, `{"items":[{"id":"c1"}]}`)
		default:
			w.WriteHeader(http.StatusNoContent)
		}
	}))
	defer srv.Close()
	tg, err := targets.Parse("t.yaml", file(`
base_url: `+srv.URL+`
setup: [{name: order, path: /orders}]
create: {path: '/orders/{{.Setup.order.id}}/capture', body: '{"m":"{{.Marker}}","v":{{.Variant}}}', id_field: id}
oracle: {list: {path: '/orders/{{.Setup.order.id}}/captures?m={{.Marker}}', items: items}}
cleanup: {delete: {path: '/orders/{{.Setup.order.id}}/captures/{{.ID}}'}}
`))
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	used, unused := targets.NewMarker("0a1b2c3d", "S1", 1), targets.NewMarker("0a1b2c3d", "S2", 2)
	if _, err := tg.Body(targets.Payload{Marker: used, Variant: "1"}); err != nil {
		t.Fatal(err)
	}
	res, err := tg.RunCleanup(context.Background(), "0a1b2c3d", []string{used, unused}, tg.Oracle.Observe)
	want := []string{"POST /orders", "GET /orders/o1/captures", "DELETE /orders/o1/captures/c1"}
	if err != nil || res.Deleted != 1 || strings.Join(seen, ", ") != strings.Join(want, ", ") {
		t.Errorf("cleanup: %+v, %v; the API saw %v, want %v", res, err, seen, want)
	}
	if _, err := targets.Parse("t.yaml", file(`
base_url: http://127.0.0.1:1
create: {path: /c, body: '{"m":"{{.Marker}}","v":{{.Variant}}}', id_field: id}
oracle: {list: {path: '/c?m={{.Marker}}'}}
cleanup: {delete: {path: '/orders/{{.Setup.order.id}}/c/{{.ID}}'}}
`)); err == nil || !strings.Contains(err.Error(), `t.yaml:4: cleanup.delete.path: {{.Setup.order.id}}: no setup request "order"`) {
		t.Errorf("a cleanup naming a setup the file lacks: %v", err)
	}
}
