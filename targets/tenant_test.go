package targets_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/targets"
)

const tenantBase = `
base_url: http://127.0.0.1:1
create: {path: /r, body: '{"m":"{{.Marker}}","v":{{.Variant}}}', id_field: id}
headers: {Authorization: Bearer default}
oracle: {list: {path: "/r?m={{.Marker}}"}}
`

func TestTenantsCarryTheirHeaders(t *testing.T) {
	t.Setenv("IDEMSPEC_TENANT_B", "tok-b-secret")
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Header.Get("Authorization"))
		w.Write([]byte(`[]`))
	}))
	defer srv.Close()
	tg, err := targets.Parse("t.yaml", file(strings.Replace(tenantBase, "http://127.0.0.1:1", srv.URL, 1)+`
tenants:
  - name: a
    headers: {Authorization: Bearer tok-a}
  - name: b
    headers: {Authorization: "Bearer ${IDEMSPEC_TENANT_B}"}
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(tg.Tenants) != 2 || tg.Tenants[1].Name != "b" {
		t.Fatalf("tenants %+v", tg.Tenants)
	}
	if !slices.Contains(tg.Secrets, "tok-b-secret") {
		t.Error("a tenant's ${ENV} credential is not a secret")
	}
	ctx := context.Background()
	for _, c := range []context.Context{ctx, targets.AsTenant(ctx, tg.Tenants[0]), targets.AsTenant(ctx, tg.Tenants[1])} {
		if _, err := tg.Oracle.Observe(c, "m"); err != nil {
			t.Fatal(err)
		}
	}
	if want := []string{"Bearer default", "Bearer tok-a", "Bearer tok-b-secret"}; !slices.Equal(seen, want) {
		t.Errorf("the oracle sent Authorization %q, want %q", seen, want)
	}
}

func TestTenantsErrors(t *testing.T) {
	for _, tc := range []struct{ extra, want string }{
		{"tenants:\n  - name: a\n    headers: {Authorization: Bearer a}\n", "t.yaml:5: tenants: give two or more tenants"},
		{"tenants:\n  - name: a\n  - name: b\n    headers: {X: y}\n", "t.yaml:5: tenants: tenant 1 needs a name and headers"},
	} {
		_, err := targets.Parse("t.yaml", file(tenantBase+tc.extra))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.extra, err, tc.want)
		}
	}
}
