package check

// The properties: random sequences of requests and faults, drawn and
// shrunk by rapid and judged step by step by harness/model, whose rules
// each carry the strength of the check they generalise.

// P1: the core guarantee held under random interleavings: "for each key at
// most one resource; every acknowledged id for a key is the same; a
// changed payload under a used key is rejected and creates nothing; after
// the final reconciliation the oracle's count equals the number of keys
// acknowledged or found", with the MUST rules of S1-S4 and K1-K6 (a
// create without the required key, a malformed key, a variation of a
// request, an attempt that failed).
var P1 = Register(Check{
	ID: "P1", Group: "property", Level: MUST,
	Clause: "core; draft-ietf-httpapi-idempotency-key-header §2.6, §2.7",
	Title:  "should execute each key once, with one resource and one id, and refuse changed payloads, across random sequences of requests and faults",
})

// P2: the SHOULD rules of K1a, K2a, K4 and K5 under the same sequences:
// the profile's statuses for a missing key and for a duplicate in flight,
// malformed keys refused, and replays that repeat the original answer.
var P2 = Register(Check{
	ID: "P2", Group: "property", Level: SHOULD,
	Clause: "draft-ietf-httpapi-idempotency-key-header §2.6, §2.7",
	Title:  "should answer with the profile's statuses and replay the original answer across random sequences of requests and faults",
})
