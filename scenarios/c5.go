package scenarios

import (
	"fmt"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/targets"
)

// C5: core: reconciliation before a resubmission. A SHOULD: with one
// stable key, a server that deduplicates makes a blind resend safe, and
// the retry stacks in wide use (urllib3's Retry, go-retryablehttp,
// tenacity, generated SDKs) resend so; the look-up first is what a
// careful client adds.
var C5 = check.Define(Check{
	ID: "C5", Group: ClientGroup, Level: check.SHOULD, Clause: "core (reconcile an unknown outcome before resubmitting; over MCP, with the read tool that finds the key)",
	Title:    "should look the operation up before it resubmits after an unknown outcome",
	Why:      "A client that resends blindly after an unknown outcome relies on the server's deduplication alone; a look-up first tells it what happened.",
	Fix:      "After an unknown outcome look the operation up (by key or marker) before resubmitting, and resubmit with the same key only if it is not there.",
	Stimulus: "Loses the answer to the first create and records the client's next requests.",
	Proof:    "A look-up request before the second create.",
	Needs:    lookupOffered,
	Run:      trialRun(lostUncommitted(ReconcileFirst)),
})

// lookupOffered is the Needs of C5 and W3: a look-up before a resend
// can be asked only of an API that offers one.
func lookupOffered(t *targets.Target) string {
	if t.LookupPath != "" {
		return ""
	}
	return "the API offers no look-up of a key (no lookup path), so there is nothing to reconcile with before a resend"
}

// ReconcileFirst judges C5: after a create whose answer was lost, a
// look-up arrives before the next create.
func ReconcileFirst(t ClientTrial) check.Verdict {
	if len(t.creates()) == 0 {
		return check.Skip("C5", "the client sent no create request in this trial, so there is no resend to judge")
	}
	var vs []check.Violation
	var lost *check.ServerRequest
	looked := false
	for i := range t.Requests {
		r := t.Requests[i]
		switch {
		case r.Kind == "lookup":
			looked = true
		case lost != nil && !looked:
			vs = append(vs, check.Violation{What: resend(t, *lost, r), Expected: "a look-up between the two creates", Observed: "none", Seqs: seqs(*lost, r)})
		}
		if r.Kind == "create" {
			lost, looked = nil, false
			if r.Lost {
				lost = &t.Requests[i]
			}
		}
	}
	return check.Judge("C5", vs...)
}

// resend says what C5's resend without a look-up was: with no key (an
// operation that takes none) there is no "same key" to speak of.
func resend(t ClientTrial, lost, next check.ServerRequest) string {
	const what = "resubmitted after an unknown outcome"
	if t.NoKey != "" {
		return what + " without looking it up first (the operation takes no key: nothing but a look-up tells whether the first call ran)"
	}
	return blindResend(what, lost.Key, next.Key)
}

// blindResend says what a resend without a look-up was: with the same
// key a deduplicating server keeps it safe; with another, nothing does
// (C1 and W2 judge the key).
func blindResend(what, lostKey, resentKey string) string {
	if lostKey == resentKey {
		return fmt.Sprintf("%s with the same key without looking it up first (safe only on a server that deduplicates by the key)", what)
	}
	return fmt.Sprintf("%s with another key without looking it up first", what)
}
