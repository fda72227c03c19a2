package scenarios

import (
	"fmt"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
)

// S3a: §2.7: "If there is an attempt to reuse an idempotency key with a
// different request payload, the resource server SHOULD reply with a HTTP
// 422 status code with body containing a link pointing to relevant
// documentation." (The profile names the code.)
var S3a = check.Define(Check{
	ID: "S3a", Group: "core", Level: check.SHOULD, Clause: "draft-ietf-httpapi-idempotency-key-header §2.7",
	Title:    "should refuse a reused key with a different payload with the profile's mismatch status",
	Why:      "A client that gets a generic error for a reused key cannot tell its own bug from a transient failure, and may retry it for ever.",
	Fix:      "Answer a key reused with a different payload with the profile's mismatch status (422 in the IETF draft) and a problem body that says so.",
	Stimulus: "The sends of S3: the original, the same key with another payload, the original again.",
	Proof:    "The status of the refused mismatch, compared with the profile's.",
	Plan:     fixed(4),
	Run:      recordRun("S3a", mismatchRecord, MismatchStatus),
})

// MismatchStatus judges S3a: a refusal of the other payload carries the
// profile's mismatch status. An accepted or unrefused mismatch is S3's
// failure: no refusal came, so there is no status to judge, and S3a is
// SKIP with that reason, never PASS.
func MismatchStatus(rec MismatchRecord) check.Verdict {
	if v, ok := mismatchRan("S3a", rec); !ok {
		return v
	}
	m := rec.Mismatch
	switch {
	case m.Outcome != history.OK:
		return check.Skip("S3a", fmt.Sprintf("S3 fails here: the reused key with another payload got no answer (%s), so there is no refusal status to judge", m.Outcome))
	case m.Status == rec.Want:
		return check.Judge("S3a")
	case !is4xx(m.Status):
		return check.Skip("S3a", fmt.Sprintf("S3 fails here: the reused key with another payload was not refused (%s), so there is no refusal status to judge", answerOf(m)))
	}
	return check.Judge("S3a", check.Violation{
		What:     "a reused key with another payload was refused with another status than the profile's",
		Expected: fmt.Sprint(rec.Want), Observed: fmt.Sprint(m.Status), Seqs: []int{m.Seq},
	})
}
