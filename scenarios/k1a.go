package scenarios

import (
	"fmt"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
)

// K1a: §2.7: "If the Idempotency-Key request header is missing for a
// documented idempotent operation requiring this header, the resource
// server SHOULD reply with an HTTP 400 status code with body containing a
// link pointing to relevant documentation." (The profile names the code.)
var K1a = check.Define(Check{
	ID: "K1a", Group: "keys", Level: check.SHOULD, Clause: "draft-ietf-httpapi-idempotency-key-header §2.7",
	Title:    "should answer a create without the required key with the profile's missing-key status",
	Why:      "A client told plainly that the key is missing fixes its request; one that gets a 500 or a bare 4xx does not know what to fix.",
	Fix:      "Answer a missing key with the profile's status (400 in the IETF draft) and a problem body that links the documentation.",
	Stimulus: "The keyless create of K1.",
	Proof:    "The status of the refusal, compared with the profile's.",
	Needs:    keyRequired,
	Plan:     fixed(2),
	Run:      recordRun("K1a", missingKeyRecord, MissingKeyStatus),
})

// MissingKeyStatus judges K1a: a refusal carries the profile's status.
// An accepted or unanswered keyless create is K1's failure: no refusal
// came, so K1a is SKIP with that reason, never PASS.
func MissingKeyStatus(rec MissingKeyRecord) check.Verdict {
	x := rec.Send
	if err := unreached([]history.Exchange{x}); err != nil {
		return check.Errored("K1a", err)
	}
	switch {
	case x.Outcome != history.OK:
		return check.Skip("K1a", fmt.Sprintf("the create without the key got no answer (%s), so there is no refusal status to judge", x.Outcome))
	case x.Is2xx():
		return check.Skip("K1a", fmt.Sprintf("K1 fails here: the create without the required key was accepted (%s), so there is no refusal status to judge", answerOf(x)))
	case x.Status == rec.Want:
		return check.Judge("K1a")
	}
	return check.Judge("K1a", check.Violation{
		What:     "a create without the required key was refused with another status than the profile's",
		Expected: fmt.Sprint(rec.Want), Observed: fmt.Sprint(x.Status), Seqs: []int{x.Seq},
	})
}
