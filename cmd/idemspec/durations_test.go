package main_test

import (
	"strings"
	"testing"
)

// A duration flag so long that idemspec's sums of durations would
// overflow is a usage error naming the flag: --deadline 2562047h with
// --slack 1h once wrapped the client's kill to a negative limit, killed
// the program after 2 ms and blamed --base-url-env.
func TestDurationFlagsThatOverflowAreUsageErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"client", "--cmd", "true", "--deadline", "2562047h", "--slack", "1h"}, "--deadline"},
		{[]string{"client", "--cmd", "true", "--slack", "2562047h"}, "--slack"},
		{[]string{"client", "--cmd", "true", "--target", "x.yaml", "--base-url-env", "API_URL", "--deadline", "2562047h", "--slack", "1h"}, "--deadline"},
		{[]string{"run", "--request-timeout", "9000h"}, "--request-timeout"},
		{[]string{"run", "--timeout", "2562047h"}, "--timeout"},
		{[]string{"run", "--search-time", "2562047h"}, "--search-time"},
		{[]string{"mcp", "--cmd", "true", "--timeout", "2562047h"}, "--timeout"},
	} {
		r := idemspec(t, c.args...)
		if r.code != 2 {
			t.Errorf("idemspec %v: exit %d, want 2\n%s%s", c.args, r.code, r.stdout, r.stderr)
			continue
		}
		if !strings.Contains(r.stderr, c.flag+" ") || !strings.Contains(r.stderr, "overflow") || !strings.Contains(r.stderr, "--help") {
			t.Errorf("idemspec %v: the usage error does not name %s and the overflow:\n%s", c.args, c.flag, r.stderr)
		}
		if strings.Contains(r.stderr, "base-url-env") || strings.Contains(r.stderr, "goroutine") {
			t.Errorf("idemspec %v: blames another flag or shows a stack:\n%s", c.args, r.stderr)
		}
	}
	// At the bound a flag is taken: the plan, which sends nothing, is
	// printed with every sum of the request timeout still positive.
	r := idemspec(t, "run", "--dry-run", "--request-timeout", "8760h", "--timeout", "8760h")
	if r.code != 0 {
		t.Errorf("--request-timeout 8760h --dry-run: exit %d, want 0\n%s%s", r.code, r.stdout, r.stderr)
	}
}
