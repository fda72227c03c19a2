package targets_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/idemspec/idemspec/targets"
)

// FieldLine finds a field in an operation's entry first, then at the
// top level, and says 0 for a field that is not there.
func TestFieldLine(t *testing.T) {
	file := `name: api
base_url: http://127.0.0.1:8080
tenants:
  - {name: a, headers: {Authorization: "Bearer a"}}
  - name: b
    headers: {Authorization: "Bearer b"}
operations:
  - name: create-order
    create:
      path: /orders
      id_field: id
  - name: refund
    key: {in: header, name: X-Key}
    create:
      path: /refunds
      id_field: data.id
`
	p := filepath.Join(t.TempDir(), "t.yaml")
	if err := os.WriteFile(p, []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		op, field string
		want      int
	}{
		{"create-order", "create.path", 10},
		{"create-order", "create.id_field", 11},
		{"refund", "create.path", 15},
		{"refund", "key", 13},
		{"create-order", "key", 0},
		{"refund", "tenants[1].headers", 6},
		{"", "tenants", 3},
		{"", "process", 0},
		{"nope", "create.path", 0},
	} {
		if got := targets.FieldLine(p, c.op, c.field); got != c.want {
			t.Errorf("FieldLine(%q, %q) = %d, want %d", c.op, c.field, got, c.want)
		}
	}
	if got := targets.FieldLine(filepath.Join(t.TempDir(), "none.yaml"), "", "create"); got != 0 {
		t.Errorf("a missing file: %d, want 0", got)
	}
}
