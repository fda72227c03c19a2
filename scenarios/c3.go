package scenarios

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/idemspec/idemspec/harness/check"
)

// C3: core: a retrying client's attempts are bounded in number and time.
var C3 = check.Define(Check{
	ID: "C3", Group: ClientGroup, Level: check.MUST, Clause: "core (bounded retries; over MCP, create tool calls, each answered with a retryable tool error)",
	Title:    "should make at most its attempt budget under a persistent failure and exit within its deadline",
	Why:      "A client that retries without bound keeps a failing dependency down and never tells its caller anything.",
	Fix:      "Bound the attempts (a budget) and the time (a deadline), with backoff, and stop with UNKNOWN_RESULT when either runs out.",
	Stimulus: "Answers every create with 503 for the whole run (nothing committed).",
	Proof:    "The creates the server received (at most --attempt-budget) and when the client exited (within --deadline and --slack).",
	Run:      trialRun(persistentOutage),
})

// C3: every create is answered 503 for the whole run.
func persistentOutage(ctx context.Context, t *trial) (check.Verdict, error) {
	return answeredAlways(ctx, t, http.StatusServiceUnavailable, "every create answered 503 "+t.ce.answerer()+" (nothing committed)", Bounded)
}

// Bounded judges C3: at most Budget creates, and an exit of its own
// within the deadline (plus slack).
func Bounded(t ClientTrial) check.Verdict {
	if v := noCreates("C3", t); v != nil {
		return *v
	}
	var vs []check.Violation
	if n := len(t.creates()); n > t.Budget {
		vs = append(vs, check.Violation{What: "more attempts than the budget", Expected: fmt.Sprintf("at most %d", t.Budget), Observed: fmt.Sprint(n), Seqs: seqs(t.creates()...)})
	}
	for _, x := range t.Exits {
		switch {
		case x.Killed != "":
			vs = append(vs, check.Violation{What: "the client did not exit by itself", Expected: fmt.Sprintf("exit within %v", t.Deadline), Observed: "killed: " + x.Killed})
		case x.Elapsed > t.Deadline+t.Slack:
			vs = append(vs, check.Violation{What: "the client exited late", Expected: fmt.Sprintf("within %v (+%v slack)", t.Deadline, t.Slack), Observed: x.Elapsed.Round(time.Millisecond).String()})
		}
	}
	return check.Judge("C3", vs...)
}
