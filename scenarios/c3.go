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
	Title: "should make at most its attempt budget under a persistent failure and exit within its deadline",
	Run:   trialRun(persistentOutage),
})

// C3: every create is answered 503 for the whole run.
func persistentOutage(ctx context.Context, t *trial) (check.Verdict, error) {
	return answeredAlways(ctx, t, http.StatusServiceUnavailable, "every create answered 503 by the server (nothing committed)", Bounded)
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
