package main_test

import (
	"strings"
	"testing"
)

// Shell completion offers the built-in fakes for --target, the check
// IDs (with their titles) as the last word of --label-filter, and the
// operations of the target file --target names for --operation.
func TestCompletion(t *testing.T) {
	for _, c := range []struct {
		args      []string
		want, not []string
	}{
		{[]string{"run", "--target", "fake:"}, []string{"fake:reference\n", "fake:memory-records\n"}, nil},
		{[]string{"run", "--target", "fake:mis"}, []string{"fake:mismatch-417\n"}, []string{"fake:reference"}},
		{[]string{"run", "--label-filter", "S1 || K"}, []string{"S1 || K1\tshould refuse a create without the required key"}, []string{"S2\t"}},
		{[]string{"validate", "--label-filter", "S"}, nil, nil}, // validate has no such flag: no panic, no check IDs
		{[]string{"run", "--target", "../../examples/targets/operations.yaml", "--operation", ""}, []string{"first\n", "second\n"}, nil},
		{[]string{"run", "--target", "fake:reference", "--operation", ""}, nil, []string{"first"}},
		{[]string{"agent", "--bug", ""}, []string{"reference\n"}, nil},
	} {
		r := idemspec(t, append([]string{"__complete"}, c.args...)...)
		if r.code != 0 {
			t.Errorf("%q: exit %d\n%s", c.args, r.code, r.stderr)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("%q: no %q in:\n%s", c.args, w, r.stdout)
			}
		}
		for _, n := range c.not {
			if strings.Contains(r.stdout, n) {
				t.Errorf("%q: %q in:\n%s", c.args, n, r.stdout)
			}
		}
	}
	if r := idemspec(t, "completion", "bash"); r.code != 0 || !strings.Contains(r.stdout, "bash completion") {
		t.Errorf("completion bash: exit %d\n%s", r.code, r.stderr)
	}
}
