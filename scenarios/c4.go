package scenarios

import (
	"context"
	"fmt"

	"github.com/idemspec/idemspec/harness/agent"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/retry/state"
)

// C4: core: a timeout proves only that the answer did not arrive.
var C4 = check.Define(Check{
	ID: "C4", Group: ClientGroup, Level: check.MUST, Clause: "core (a timeout is an unknown outcome, not a failure; over MCP, so is a call whose session closed before its answer)",
	Title:    "should report SUCCEEDED or UNKNOWN_RESULT, never FAILED, after timeouts where the server did commit",
	Why:      "A client that reports FAILED after a timeout makes its caller retry or refund an operation that did happen.",
	Fix:      "After a timeout or a dropped connection report UNKNOWN_RESULT (or reconcile and report SUCCEEDED), never FAILED: the server may have committed.",
	Stimulus: "Loses the answers of creates the server commits, until the client stops.",
	Proof:    "The client's end state, from its result file or its last line of output.",
	Run:      trialRun(lostCommitted),
})

// C4: the first create commits and its answer is lost.
func lostCommitted(ctx context.Context, t *trial) (check.Verdict, error) {
	if err := loseFirstAnswer(ctx, t, "on the client's lane until the first create (committed) reached the server"); err != nil {
		return check.Verdict{}, err
	}
	return t.judgedBy(ctx, NotFailedAfterCommit)
}

// NotFailedAfterCommit judges C4: the server committed (Resources > 0),
// so a client that says FAILED is wrong, and one that printed no result
// said nothing a caller could use.
func NotFailedAfterCommit(t ClientTrial) check.Verdict {
	if v := noCreates("C4", t); v != nil {
		return *v
	}
	if t.Resources == 0 {
		return check.Errored("C4", fmt.Errorf("the server never committed the create, so C4 cannot be judged"))
	}
	var vs []check.Violation
	for _, x := range t.Exits {
		if t.Unmodified && x.State == "" && x.Killed == "" {
			return check.Skip("C4", fmt.Sprintf("the program reported no end state: no result line on stdout or in %s, and --exit-codes maps no state to its exit code %d", agent.EnvResultFile, x.Code))
		}
		switch state.State(x.State) {
		case state.Succeeded, state.UnknownResult:
		case state.Failed:
			vs = append(vs, check.Violation{What: "the client reported a committed create as failed", Expected: "SUCCEEDED or UNKNOWN_RESULT", Observed: "FAILED"})
		default:
			vs = append(vs, check.Violation{What: "the client printed no result", Expected: "SUCCEEDED or UNKNOWN_RESULT", Observed: orNone(x.Problem + x.Killed)})
		}
	}
	return check.Judge("C4", vs...)
}
