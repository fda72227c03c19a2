package main_test

import (
	"strings"
	"testing"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/harness/check"
)

// A correct server whose replays come after --request-timeout: the
// checks that wait on a replay did not see it, and say so as ERROR
// (exit 2), naming the requests and the timeout to raise. None FAILs: a
// request without an answer may or may not have been applied, which
// breaks no clause, and the effects the checks saw hold (one resource).
func TestMissingAnswersAreErrorsNotFailures(t *testing.T) {
	t.Parallel()
	// The replays wait a minute, or until idemspec gives up on them; the
	// first answers come at once, so only the replays go missing.
	r := run(t, "--target", "fake:"+fakes.Reference+"?replay_delay=1m", "--request-timeout", "3s", "--label-filter", "S1 || K4")
	if r.code != 2 {
		t.Errorf("exit %d, want 2 (an ERROR)\n%s", r.code, r.stdout)
	}
	for _, id := range []string{"S1", "K4"} {
		c := checkResult(t, r, id)
		if c.Verdict != check.ERROR || !strings.Contains(c.Reason, "got no answer") || !strings.Contains(c.Reason, "--request-timeout") {
			t.Errorf("%s: %s (%s), want ERROR naming the missing answers and --request-timeout", id, c.Verdict, c.Reason)
		}
	}
}
