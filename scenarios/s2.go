package scenarios

import (
	. "github.com/onsi/ginkgo/v2"

	"context"
	"fmt"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
)

// S2: "first response is lost after the server finished, then a retry
// with the same key: the retry returns the original resource id".
var S2 = check.Define(Check{
	ID: "S2", Group: "core", Level: check.MUST, Clause: "core; draft-ietf-httpapi-idempotency-key-header §2.6",
	Title:    "should replay the original result to a retry whose first response was lost",
	Why:      "A client whose answer was lost in the network retries, and a server that does not replay the stored result creates a duplicate or gives the client an answer it cannot match to the first.",
	Fix:      "Write the key record in the same transaction as the effect, with the answer (status, id), and return that stored answer to every retry with the key.",
	Stimulus: "Sends a create through the faulty lane, whose toxic drops the answer after the server committed, waits until the oracle sees the commit, then retries with the same key and bytes on the clean lane.",
	Proof:    "The retry's answer carries the original resource's id, and the oracle counts one resource.",
	Plan: func(p Planning) check.Plan {
		return check.Plan{Requests: 6, MaxRequests: 3 + commitPolls(p.Settings) + harness.MaxSettleAttempts,
			Faults: []string{harness.ResponseLoss{}.Name() + " on the faulty lane, first attempt"}}
	},
	Run: serverRun(replayAfterLoss),
})

// S2: the first answer is lost after the server committed; then retries.
func replayAfterLoss(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error) {
	key, marker := e.NewKey(), e.NewMarker("S2")
	body, err := e.Body(marker, "100")
	if err != nil {
		return check.Verdict{}, err
	}
	fault := harness.ResponseLoss{}
	remove, err := e.Faulty.Apply(fault)
	if err != nil {
		return check.Verdict{}, err
	}
	DeferCleanup(remove)
	ev.Faults = append(ev.Faults, fault.Name()+" on the faulty lane for the first attempt")

	// The answer will never come; the oracle tells when the server
	// committed, and only then does the client give up. Waiting on that
	// event (not a timer) makes "lost after the server finished" true.
	committed := make(chan struct{})
	go func() {
		defer GinkgoRecover()
		defer close(committed)
		e.AwaitCommit(ctx, marker)
	}()
	first := harness.Attempt{Step: "first (answer lost)", Lane: e.Faulty, Key: key, Body: body, Variant: "100",
		Cancel: committed, Timeout: e.Settings.CommitWait + e.Settings.RequestTimeout}
	lost := e.Send(ctx, h, first)
	<-committed
	remove()

	retry := harness.Attempt{Step: "retry", Lane: e.Clean, Key: key, Body: body, Variant: "100"}
	retries := e.SendUntilSettled(ctx, h, retry, e.Target.InProgressTimeout+e.Settings.RequestTimeout)
	retry.Step = "second retry"
	replay := e.Send(ctx, h, retry)
	r, err := reading(ctx, e, ev, marker, "after the retries")
	if err != nil {
		return check.Verdict{}, err
	}
	return ReplayAfterLoss(LossRecord{
		Lost: []history.Exchange{lost}, Retries: retries, Replay: replay, Reading: r,
		InFlight: e.Target.Profile.InFlight,
	}), nil
}

// LossRecord is what S2 observed: the attempts whose answer was lost, the
// same-key retries that followed (in-flight answers included), and one
// more retry after the first success, to compare replays.
type LossRecord struct {
	Lost     []history.Exchange
	Retries  []history.Exchange
	Replay   history.Exchange
	Reading  check.Reading
	InFlight int // the status the target uses for "still in flight"
}

// ReplayAfterLoss judges S2.
func ReplayAfterLoss(rec LossRecord) check.Verdict {
	all := append(append([]history.Exchange(nil), rec.Retries...), rec.Replay)
	if err := unreached(all); err != nil {
		return check.Errored("S2", err)
	}
	missing := unanswered(all)
	var vs []check.Violation
	var final *history.Exchange
	for i, x := range rec.Retries {
		switch {
		case x.Is2xx():
			final = &rec.Retries[i]
		case x.Outcome == history.OK && x.Status != rec.InFlight:
			vs = append(vs, check.Violation{
				What:     fmt.Sprintf("%s: the retry after a lost response was refused", x.Step),
				Expected: fmt.Sprintf("2xx, or %d while the first request is still in flight", rec.InFlight),
				Observed: fmt.Sprint(x.Status),
				Seqs:     []int{x.Seq},
			})
		}
	}
	if final == nil && len(vs) == 0 && len(missing) == 0 {
		vs = append(vs, check.Violation{What: "no retry got a successful answer before the harness gave up", Expected: "2xx", Observed: "only in-flight answers"})
	}
	id, idv := sameID(all)
	vs = append(vs, idv...)
	vs = append(vs, countsOneOrNone(rec.Reading, id, missing)...)
	// The second retry must get the original result again; sameID holds
	// it to the same resource. How faithfully the answer is replayed
	// (status, body, headers) is K4's to judge.
	if final != nil && rec.Replay.Outcome == history.OK && !rec.Replay.Is2xx() {
		vs = append(vs, check.Violation{
			What: "a second retry was refused after the first got the original result", Expected: "2xx with the original resource",
			Observed: fmt.Sprint(rec.Replay.Status), Seqs: []int{final.Seq, rec.Replay.Seq},
		})
	}
	return judged("S2", vs, missing)
}
