package scenarios

import "github.com/idemspec/idemspec/harness/check"

// C2: the server fingerprints the payload; a retry that differs is
// another request (422), so a retry resends the same bytes.
var C2 = check.Define(Check{
	ID: "C2", Group: ClientGroup, Level: check.MUST, Clause: "draft-ietf-httpapi-idempotency-key-header §2 (a retry is the same request; over MCP, the same tool arguments besides the key)",
	Title:    "should send the same payload on every attempt",
	Why:      "A retry whose payload differs (a new timestamp, a regenerated field) is refused as a mismatch (422) or, by a server without a fingerprint, executed as another request.",
	Fix:      "Build the request body once, keep it with the key, and resend those same bytes on every attempt.",
	Stimulus: "Loses the answer to the first create, as C1, and records every attempt.",
	Proof:    "The payload hash of every create of the operation.",
	Run:      trialRun(lostUncommitted(SamePayload)),
})

// SamePayload judges C2: every create carries the first's payload bytes.
func SamePayload(t ClientTrial) check.Verdict {
	if v := noCreates("C2", t); v != nil {
		return *v
	}
	cs := t.creates()
	var vs []check.Violation
	for _, c := range cs[1:] {
		if c.Hash != cs[0].Hash {
			vs = append(vs, check.Violation{What: "a retry carried another payload", Expected: "sha256 " + cs[0].Hash, Observed: "sha256 " + c.Hash, Seqs: seqs(cs[0], c)})
		}
	}
	return check.Judge("C2", vs...)
}
