package scenarios

import (
	"context"
	"fmt"

	"github.com/idemspec/idemspec/harness/check"
)

// W3: core: a step whose outcome is unknown is reconciled before it is
// sent again. A SHOULD, as C5: a step resent with its one key is safe on
// a server that deduplicates, and DBOS Transact's and Celery's advised
// patterns resend so.
var W3 = check.Define(Check{
	ID: "W3", Group: WorkflowGroup, Level: check.SHOULD, Clause: "core (reconcile a step's unknown outcome before resubmitting it)",
	Title:    "should look a keyed step up before it resubmits it after an unknown outcome",
	Why:      "A step resent blindly after an unknown outcome relies on the server's deduplication alone; a look-up first tells the job what happened.",
	Fix:      "Before resending a step whose outcome is unknown, look it up by its key, and resend with the same key only if it is not there.",
	Stimulus: "Loses a keyed step's answer and records the job's next requests.",
	Proof:    "A look-up before the step is sent again.",
	Timeout:  jobTimeout,
	Needs:    lookupOffered,
	Run:      trialRun(lostUnrun),
})

// W3: every step's first request is dropped on arrival, unrun: the
// program hears nothing, a look-up says "unknown key", and a
// resubmission is due.
func lostUnrun(ctx context.Context, t *trial) (check.Verdict, error) {
	if err := loseEachAnswer(ctx, t, false); err != nil {
		return check.Verdict{}, err
	}
	return endAndJudge(ctx, t, 0, LookupBeforeResend)
}

// LookupBeforeResend judges W3: after a keyed step's send whose answer
// never came, a look-up of its key comes before the step's next send
// (with any key).
func LookupBeforeResend(jt JobTrial) check.Verdict {
	if jt.needSends() != nil {
		return check.Skip("W3", "the program sent no step of its job in this trial, so there is no resend to judge")
	}
	var vs []check.Violation
	exercised := false
	for _, s := range jt.keyed() {
		sends := jt.sends(s.Name)
		for i, sent := range sends {
			if !sent.Lost && !sent.Dropped || i+1 == len(sends) {
				continue
			}
			exercised = true
			next := sends[i+1]
			if !jt.lookedUp(sent.Key, sent.Seq, next.Seq) {
				vs = append(vs, check.Violation{What: blindResend("resubmitted step "+s.Name+" after an unknown outcome", sent.Key, next.Key), Expected: "a look-up of key " + sent.Key + " first", Observed: "none", Seqs: []int{sent.Seq, next.Seq}})
			}
		}
	}
	if !exercised && len(vs) == 0 {
		for _, r := range jt.Requests {
			exercised = exercised || r.Kind == "lookup"
		}
		if !exercised {
			return check.Errored("W3", fmt.Errorf("no keyed step was resubmitted or looked up after an unknown outcome, so W3 cannot be judged"))
		}
	}
	return check.Judge("W3", vs...)
}

// lookedUp reports a look-up of key between two sequence numbers.
func (jt JobTrial) lookedUp(key string, after, before int) bool {
	for _, r := range jt.Requests {
		if r.Kind == "lookup" && r.Key == key && r.Seq > after && r.Seq < before {
			return true
		}
	}
	return false
}
