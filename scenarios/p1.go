package scenarios

import "github.com/idemspec/idemspec/harness/check"

// P1: the core guarantee held under random interleavings: "for each key at
// most one resource; every acknowledged id for a key is the same; a
// changed payload under a used key is rejected and creates nothing; after
// the final reconciliation the oracle's count equals the number of keys
// acknowledged or found", with the MUST rules of S1-S4 and K1-K6 (a
// create without the required key, a malformed key, a variation of a
// request, an attempt that failed).
var P1 = check.Define(Check{
	ID: "P1", Group: "property", Level: check.MUST,
	Clause:   "core; draft-ietf-httpapi-idempotency-key-header §2.6, §2.7",
	Title:    "should execute each key once, with one resource and one id, and refuse changed payloads, across random sequences of requests and faults",
	Why:      "Rules that hold one at a time can break together: a retry after a mismatch, a restart between a create and its replay, a crash in a burst.",
	Fix:      "The patterns of S1 to K6 together: a unique key record in the effect's transaction, the payload fingerprint compared on every replay, an in-progress marker with an expiry.",
	Stimulus: "Runs random sequences of creates, retries, changed payloads, lost answers, bursts, restarts and crashes over a few keys, and shrinks a failing one.",
	Proof:    "A model of what each sequence may have done, checked against every answer and the oracle's count; a failure shows the shortest sequence and the command that replays it.",
	Plan:     propertyPlan(""),
	Run:      serverRunWith(propertySpec("P1")),
	Timeout:  propertyTimeout,
})
