package scenarios

import "github.com/idemspec/idemspec/harness/check"

// P2: the SHOULD rules of K1a, K2a, K4 and K5 under the same sequences:
// the profile's statuses for a missing key and for a duplicate in flight,
// malformed keys refused, and replays that repeat the original answer.
var P2 = check.Define(Check{
	ID: "P2", Group: "property", Level: check.SHOULD,
	Clause:   "draft-ietf-httpapi-idempotency-key-header §2.6, §2.7",
	Title:    "should answer with the profile's statuses and replay the original answer across random sequences of requests and faults",
	Why:      "The statuses and replays a client relies on must stay right in combination, not only in the single-rule checks.",
	Fix:      "The patterns of K1a, K2a, K4 and K5 together: the profile's statuses for a missing key, a malformed key and a duplicate in flight, and replays stored and returned whole.",
	Stimulus: "The random sequences of P1.",
	Proof:    "The statuses and replays along the sequences, compared with the profile's.",
	Plan:     propertyPlan("P1"),
	Run:      serverRunWith(propertySpec("P2")),
	Timeout:  propertyTimeout,
})
