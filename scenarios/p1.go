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
	Clause:  "core; draft-ietf-httpapi-idempotency-key-header §2.6, §2.7",
	Title:   "should execute each key once, with one resource and one id, and refuse changed payloads, across random sequences of requests and faults",
	Plan:    propertyPlan(""),
	Run:     serverRun(propertySpec("P1")),
	Timeout: propertyTimeout,
})
