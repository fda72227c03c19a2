package targets_test

import (
	"strings"
	"testing"

	"github.com/idemspec/idemspec/targets"
)

// twoOperations is a file of two operations that share the file's key,
// headers and oracle, the second with its own profile and oracle.
const twoOperations = `
name: shop
base_url: http://127.0.0.1:8080
key:
  name: Idempotency-Key
oracle:
  list:
    path: /orders?marker={{.Marker}}
operations:
  - name: create-order
    create:
      path: /orders
      body: '{"marker":"{{.Marker}}","amount":{{.Variant}}}'
      id_field: id
  - name: refund
    profile: stripe
    create:
      path: /refunds
      body: '{"note":"{{.Marker}}","amount":{{.Variant}}}'
      id_field: data.id
    oracle:
      list:
        path: /refunds?note={{.Marker}}
        marker_field: note
`

func TestParseOperations(t *testing.T) {
	tg, err := targets.Parse("t.yaml", file(twoOperations))
	if err != nil {
		t.Fatal(err)
	}
	ops := tg.Each()
	if len(ops) != 2 || ops[0] != tg {
		t.Fatalf("Each() = %d operations, the file's target first: %v", len(ops), ops[0] == tg)
	}
	order, refund := ops[0], ops[1]
	if order.Operation != "create-order" || refund.Operation != "refund" {
		t.Errorf("operations %q, %q", order.Operation, refund.Operation)
	}
	if order.Create.Path != "/orders" || refund.Create.Path != "/refunds" || refund.Create.IDField != "data.id" {
		t.Errorf("create paths %q, %q (id %q)", order.Create.Path, refund.Create.Path, refund.Create.IDField)
	}
	if order.Profile.Name == refund.Profile.Name || refund.Profile.Name != "stripe" {
		t.Errorf("profiles %q, %q: refund overrides the file's", order.Profile.Name, refund.Profile.Name)
	}
	if order.Oracle == refund.Oracle {
		t.Error("the operations share one oracle; refund declares its own")
	}
	if refund.Name != "shop" || refund.BaseURL != order.BaseURL || refund.Direct != order.Direct || refund.Key.Name != "Idempotency-Key" {
		t.Error("the second operation does not share the file's name, base URL, direct client and key")
	}
	if err := tg.Select([]string{"refund"}); err != nil || len(tg.Each()) != 1 || tg.Each()[0] != refund {
		t.Errorf("Select(refund) = %v", err)
	}
}

func TestParseOneCreateIsOneUnnamedOperation(t *testing.T) {
	tg, err := targets.Parse("t.yaml", file(`
base_url: http://127.0.0.1:8080
create:
  path: /orders
  body: '{"marker":"{{.Marker}}","n":{{.Variant}}}'
  id_field: id
oracle:
  list:
    path: /orders?marker={{.Marker}}
`))
	if err != nil {
		t.Fatal(err)
	}
	if ops := tg.Each(); len(ops) != 1 || ops[0] != tg || tg.Operation != "" {
		t.Errorf("Each() = %v, operation %q", ops, tg.Operation)
	}
	if err := tg.Select([]string{"x"}); err == nil || !strings.Contains(err.Error(), "declares no operations") {
		t.Errorf("Select on a file without operations: %v", err)
	}
}

func TestParseOperationErrors(t *testing.T) {
	tests := []struct{ name, data, want string }{
		{"create and operations", strings.Replace(twoOperations, "operations:", "create:\n  path: /x\n  body: '{}'\n  id_field: id\noperations:", 1),
			"t.yaml:8: create: give create or operations, not both"},
		{"duplicate name", strings.Replace(twoOperations, "name: refund", "name: create-order", 1),
			`t.yaml:14: operations[1].name: "create-order" names an operation already`},
		{"bad name", strings.Replace(twoOperations, "name: refund", "name: Refund", 1),
			`t.yaml:14: operations[1].name: "Refund" is not an operation name`},
		{"missing name", strings.Replace(twoOperations, "  - name: refund\n    profile", "  - profile", 1),
			"t.yaml:14: operations[1].name: missing required field"},
		{"unknown field", strings.Replace(twoOperations, "profile: stripe", "profil: stripe", 1),
			`t.yaml:15: operations[1].profil: unknown field (did you mean "profile"?)`},
		{"error in the create", strings.Replace(twoOperations, "path: /refunds", "path: /refunds/{{.Nope}}", 1),
			"t.yaml:17: operations[1].create.path: "},
		{"error in the oracle", strings.Replace(twoOperations, "path: /refunds?note", "path: /refunds?{{.Nope}}note", 1),
			"t.yaml:22: operations[1].oracle.list.path: "},
		{"type error", strings.Replace(twoOperations, "volatile", "x", 1) + "    in_progress_timeout: [1]\n",
			"t.yaml:24: operations[1].in_progress_timeout: "},
		{"no oracle anywhere", strings.Replace(twoOperations, "oracle:\n  list:\n    path: /orders?marker={{.Marker}}\n", "", 1),
			"operations[0].oracle: missing required field"},
		{"empty list", "base_url: http://127.0.0.1:8080\noperations: []\n", "t.yaml:2: operations: expected a list of operations"},
		{"a file-level field stays the file's", strings.Replace(twoOperations, "name: Idempotency-Key", "name: 'bad header'", 1),
			"t.yaml:4: key.name: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := targets.Parse("t.yaml", file(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}
