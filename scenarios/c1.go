package scenarios

import "github.com/idemspec/idemspec/harness/check"

// C1: draft §2: a retry of the same request carries the same key.
var C1 = check.Define(Check{
	ID: "C1", Group: ClientGroup, Level: check.MUST, Clause: "draft-ietf-httpapi-idempotency-key-header §2 (a retry carries the same key; over MCP, the same idempotency_key argument)",
	Title:    "should send the same idempotency key on every attempt after a lost response",
	Why:      "A client that draws a new key for each attempt turns every retry after a lost answer into a new operation: the server cannot deduplicate what it cannot recognise.",
	Fix:      "Draw the key once per operation, persist it before the first send, and reuse it on every attempt.",
	Stimulus: "Serves the reference server to the client command, loses the answer to its first create (the server commits), and records every attempt.",
	Proof:    "The key of every create the server received for the operation.",
	Run:      trialRun(lostUncommitted(SameKey)),
})

// SameKey judges C1: every create of the operation carries the first's key.
func SameKey(t ClientTrial) check.Verdict {
	if v := noCreates("C1", t); v != nil {
		return *v
	}
	if t.NoKey != "" {
		return check.Skip("C1", t.NoKey)
	}
	cs := t.creates()
	var vs []check.Violation
	for _, c := range cs[1:] {
		if c.Key != cs[0].Key {
			vs = append(vs, check.Violation{What: "a retry carried another key", Expected: cs[0].Key, Observed: c.Key, Seqs: seqs(cs[0], c)})
		}
	}
	return check.Judge("C1", vs...)
}
