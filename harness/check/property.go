package check

// P1: the core guarantee held under random interleavings: "for each key at
// most one resource; every acknowledged id for a key is the same; a
// changed payload under a used key is rejected and creates nothing; after
// the final reconciliation the oracle's count equals the number of keys
// acknowledged or found". The sequences are drawn and shrunk by rapid and
// judged step by step by harness/model.
var P1 = Register(Check{
	ID: "P1", Group: "property", Level: MUST,
	Clause: "core; draft-ietf-httpapi-idempotency-key-header §2.6, §2.7",
	Title:  "should keep one resource and one id per key, and reject changed payloads, across random sequences of submits, lost answers and bursts",
})
