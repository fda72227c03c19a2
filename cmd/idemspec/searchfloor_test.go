package main_test

import (
	"strings"
	"testing"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/scenarios"
)

// A search that ran no sequence exercised no rule: --search-time 1ns
// once gave P1 PASS after 0 sequences ("3 of 3 not started"). P1 and P2
// are ERROR, saying why and which flag to raise, and the run exits 2.
func TestSearchThatRanNothingIsNoPass(t *testing.T) {
	t.Parallel()
	r := run(t, "--label-filter", "property", "--sequences", "3", "--search-time", "1ns")
	for _, id := range []string{scenarios.P1.ID, scenarios.P2.ID} {
		c := checkResult(t, r, id)
		if c.Verdict != check.ERROR || !strings.Contains(c.Reason, "ran 0 sequences") || !strings.Contains(c.Reason, "raise --search-time") {
			t.Errorf("%s %s (%s): want ERROR, no sequence ran, raise --search-time", id, c.Verdict, c.Reason)
		}
	}
	if r.code != 2 {
		t.Errorf("exit %d, want 2\n%s%s", r.code, r.stdout, r.stderr)
	}
}
