package harness_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/targets"
)

// The Envs of a target's operations share one gate and one list of
// markers: the budget and the cleanup span every operation.
func TestOperationsShareGateAndMarkers(t *testing.T) {
	in, err := fakes.Start(fakes.Options{}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close() })
	target, err := targets.Parse("t.yaml", fmt.Appendf(nil, `
base_url: %s
oracle:
  list:
    path: /resources?marker={{.Marker}}
    items: items
operations:
  - name: first
    create: {path: /resources, body: '{"marker":"{{.Marker}}","amount":{{.Variant}}}', id_field: id}
  - name: second
    create: {path: /resources, body: '{"marker":"{{.Marker}}","n":{{.Variant}}}', id_field: id}
`, in.URL))
	if err != nil {
		t.Fatal(err)
	}
	s := harness.DefaultSettings()
	s.Limits.Budget = 3
	env, err := harness.New(target, s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	ops := env.Operations()
	if len(ops) != 2 || ops[0] != env || ops[1].Target.Operation != "second" || ops[1].RunID != env.RunID {
		t.Fatalf("operations %v", ops)
	}
	ctx := context.Background()
	for _, e := range []*harness.Env{ops[0], ops[1], ops[1]} {
		if _, err := e.Observe(ctx, e.NewMarker("S1")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ops[0].Observe(ctx, "m"); !errors.Is(err, harness.ErrBudget) {
		t.Errorf("a fourth oracle read of a budget of 3, over two operations: %v", err)
	}
	if env.Sent() != 3 || ops[1].Sent() != 3 {
		t.Errorf("sent %d, %d: one count for both operations", env.Sent(), ops[1].Sent())
	}
	if m := env.Markers(); len(m) != 3 || !slices.Equal(m, ops[1].Markers()) {
		t.Errorf("markers %v, %v: one list for both operations", m, ops[1].Markers())
	}
}
