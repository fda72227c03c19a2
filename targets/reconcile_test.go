package targets_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/targets"
)

func TestReconcileByOracle(t *testing.T) {
	tg, err := targets.Parse("t.yaml", file(`
base_url: http://localhost:8080/api/
create:
  path: things
  body: '{"marker":"{{.Marker}}","amount":{{.Variant}}}'
  id_field: id
headers:
  X-Tenant: t1
oracle:
  list:
    path: things?marker={{.Marker}}
    items: items
reconcile: oracle
`))
	if err != nil {
		t.Fatal(err)
	}
	if tg.Reconcile != targets.ReconcileOracle {
		t.Fatalf("Reconcile = %q", tg.Reconcile)
	}
	o, ok := tg.Oracle.(targets.ClientOracle)
	if !ok {
		t.Fatalf("a list oracle is a %T, not a ClientOracle", tg.Oracle)
	}
	req, err := o.Request(context.Background(), "m-1")
	if err != nil {
		t.Fatal(err)
	}
	if req.Method != http.MethodGet || req.URL.String() != "http://localhost:8080/api/things?marker=m-1" || req.Header.Get("X-Tenant") != "t1" {
		t.Fatalf("oracle request %s %s with headers %v", req.Method, req.URL, req.Header)
	}
	obs, err := o.Read(http.StatusOK, []byte(`{"items":[{"id":"r1"}]}`), "m-1")
	if err != nil || obs.Count != 1 || obs.IDs[0] != "r1" {
		t.Fatalf("Read = %+v, %v", obs, err)
	}
}

func TestLookup(t *testing.T) {
	tg := fakes.DescribeTarget("http://127.0.0.1:1", "fake:test")
	tg.Headers.Set("Authorization", "Bearer t")
	req, err := tg.NewLookup(context.Background(), "k 1/2")
	if err != nil {
		t.Fatal(err)
	}
	if req.Method != http.MethodGet || req.URL.String() != "http://127.0.0.1:1/idempotency-keys/k%201%2F2" || req.Header.Get("Authorization") != "Bearer t" {
		t.Fatalf("look-up request %s %s with headers %v", req.Method, req.URL, req.Header)
	}
	tests := []struct {
		name   string
		status int
		body   string
		known  bool
		id     string
		err    bool
	}{
		{"unknown key", 404, `{"error":"unknown key"}`, false, "", false},
		{"expired key", 410, ``, false, "", false},
		{"finished", 200, `{"state":"complete","resource_id":"res_1"}`, true, "res_1", false},
		{"in flight", 200, `{"state":"in_flight","resource_id":""}`, true, "", false},
		{"no id field", 200, `{"state":"in_flight"}`, true, "", false},
		{"server error", 500, `{}`, false, "", true},
		{"unauthorised", 401, `{}`, false, "", true},
		{"not JSON", 200, `<html>`, false, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			known, id, err := tg.ReadLookup(tc.status, []byte(tc.body))
			if known != tc.known || id != tc.id || (err != nil) != tc.err {
				t.Fatalf("ReadLookup = %t, %q, %v; want %t, %q, error %t", known, id, err, tc.known, tc.id, tc.err)
			}
		})
	}
	tg.LookupPath = ""
	if _, err := tg.NewLookup(context.Background(), "k"); err == nil {
		t.Fatal("a look-up without a lookup path")
	}
}
