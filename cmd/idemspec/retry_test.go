package main_test

import (
	"strings"
	"testing"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/harness/check"
)

// S6 through a target file, for each way a target can declare how its
// clients reconcile: the file points at a reference server this test
// starts.
func TestRetryCheckByReconciliation(t *testing.T) {
	long(t)
	t.Parallel()
	in := startFake(t, fakes.Options{})
	base := `
base_url: ` + in.URL + `
` + referenceAPI + `in_progress_timeout: 2s
`
	tests := []struct {
		name  string
		extra string
		want  check.Status
		code  int
	}{
		{"by look-up", "lookup:\n  path: /idempotency-keys/{{.Key}}\n", check.PASS, 0},
		{"by the oracle", "reconcile: oracle\n", check.PASS, 0},
		{"no way to reconcile", "", check.WARN, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeFile(t, "target.yaml", base+tt.extra)
			r := run(t, "--target", p, "--label-filter", "S6")
			var got check.Status
			var reason string
			for _, c := range r.report.Checks {
				if c.ID == "S6" {
					got, reason = c.Verdict, c.Reason
				}
			}
			if got != tt.want || r.code != tt.code {
				t.Fatalf("S6 %s (%s), exit %d; want %s, exit %d\n%s", got, reason, r.code, tt.want, tt.code, r.stdout)
			}
			if tt.want == check.WARN && !strings.Contains(reason, "no way to reconcile") {
				t.Errorf("the warning does not say why: %s", reason)
			}
		})
	}
	t.Run("a warning fails a strict run", func(t *testing.T) {
		p := writeFile(t, "target.yaml", base)
		if r := run(t, "--target", p, "--label-filter", "S6", "--strict"); r.code != 1 {
			t.Fatalf("exit %d, want 1\n%s", r.code, r.stdout)
		}
	})
}
