package scenarios

import (
	"context"
	"fmt"
	"net/http"

	"github.com/idemspec/idemspec/harness/check"
)

// C7: draft §2.7: 400 and 422 are final for that request.
var C7 = check.Define(Check{
	ID: "C7", Group: ClientGroup, Level: check.MUST, Clause: "draft-ietf-httpapi-idempotency-key-header §2.7 (400 and 422 are final; over MCP, a tool error (isError) not marked retryable)",
	Title:    "should not retry a create the server refused with a final 4xx (400, 422)",
	Why:      "A 400 or 422 says the request itself is wrong: retrying it unchanged cannot succeed, adds load, and can hide a key-reuse bug.",
	Fix:      "Treat 400 and 422 as final (stop and report FAILED), and retry only after timeouts, 409, 429 and 5xx.",
	Stimulus: "Answers every create of the client with 422, as for a key reused with another payload.",
	Proof:    "The creates the server received after the first refusal (none).",
	Run:      trialRun(refused),
})

// C7: every create is refused with 422 (as for a key reused with another
// payload): final for the request.
func refused(ctx context.Context, t *trial) (check.Verdict, error) {
	return answeredAlways(ctx, t, http.StatusUnprocessableEntity, "every create refused 422 "+t.ce.answerer(), NoRetryOfRefusal)
}

// NoRetryOfRefusal judges C7: no create follows one answered 400 or 422.
func NoRetryOfRefusal(t ClientTrial) check.Verdict {
	if v := noCreates("C7", t); v != nil {
		return *v
	}
	cs := t.creates()
	for i, c := range cs {
		if (c.Status == 400 || c.Status == 422) && i+1 < len(cs) {
			return check.Judge("C7", check.Violation{What: fmt.Sprintf("retried a create refused with %d", c.Status), Expected: "no further create", Observed: fmt.Sprintf("%d more", len(cs)-i-1), Seqs: seqs(cs[i:]...)})
		}
	}
	return check.Judge("C7")
}
