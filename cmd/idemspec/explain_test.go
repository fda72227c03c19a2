package main_test

import (
	"strings"
	"testing"

	"github.com/idemspec/idemspec/harness/check"
)

// TestExplainSaysHowToPass: `idemspec explain S5b` prints the clause,
// what idemspec does, the evidence it needs and the fix, from the
// registry; `explain` alone lists every check with its fix; an unknown
// ID is a usage error naming it.
func TestExplainSaysHowToPass(t *testing.T) {
	t.Parallel()
	c, ok := check.Get("S5b")
	if !ok {
		t.Fatal("no S5b in the registry")
	}
	r := idemspec(t, "explain", "s5b") // any case
	if r.code != 0 {
		t.Fatalf("explain s5b: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	flat := strings.Join(strings.Fields(r.stdout), " ")
	for _, want := range []string{
		"S5b (MUST, restart): " + c.Title,
		"Clause: " + c.Clause,
		"Why it matters: " + c.Why,
		"What idemspec does: " + c.Stimulus,
		"Evidence it needs: " + c.Proof,
		"How to pass: " + c.Fix,
		"stuck-inflight",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("explain S5b lacks %q:\n%s", want, r.stdout)
		}
	}
	for _, l := range strings.Split(r.stdout, "\n")[1:] {
		if len(l) > 80 {
			t.Errorf("explain S5b: a line of %d characters, not wrapped: %q", len(l), l)
		}
	}
	all := idemspec(t, "explain")
	if all.code != 0 {
		t.Fatalf("explain: exit %d\n%s", all.code, all.stderr)
	}
	for _, c := range check.All() {
		if !strings.Contains(all.stdout, c.Fix) {
			t.Errorf("explain lists no fix for %s", c.ID)
		}
	}
	if r := idemspec(t, "explain", "S99"); r.code != 2 || !strings.Contains(r.stderr, `no check "S99"`) {
		t.Errorf("explain S99: exit %d, stderr %q", r.code, r.stderr)
	}
}
