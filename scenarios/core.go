package scenarios

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
)

// The core scenarios S1 to S4.
var _ = Describe("core", func() {
	It(check.S1.Title, labels(check.S1), SpecTimeout(specTimeout), run(check.S1, oneResource))
	It(check.S2.Title, labels(check.S2), SpecTimeout(specTimeout), run(check.S2, replayAfterLoss))
	It(check.S3.Title, labels(check.S3), SpecTimeout(specTimeout), run(check.S3, mismatchRejected))
	It(check.S3a.Title, labels(check.S3a), SpecTimeout(specTimeout), run(check.S3a, mismatchStatus))
	It(check.S4.Title, labels(check.S4), SpecTimeout(specTimeout), run(check.S4, noRaceDuplicates))
})

// S1: the same request, sent again and again in sequence.
func oneResource(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error) {
	key, marker := e.NewKey(), e.NewMarker("S1")
	body, err := e.Body(marker, "100")
	if err != nil {
		return check.Verdict{}, err
	}
	for i := 1; i <= e.Settings.Repeats; i++ {
		e.Send(ctx, h, harness.Attempt{Step: fmt.Sprintf("send %d", i), Lane: e.Clean, Key: key, Body: body})
	}
	r, err := reading(ctx, e, ev, marker, "after the sends")
	if err != nil {
		return check.Verdict{}, err
	}
	return check.OneResource(h.Exchanges(), r), nil
}

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
	return check.ReplayAfterLoss(check.LossRun{
		Lost: []history.Exchange{lost}, Retries: retries, Replay: replay, Reading: r,
		InFlight: e.Target.Profile.InFlight,
	}), nil
}

// S3: the same key with another payload, between two sends of the original.
func mismatchRejected(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error) {
	run, err := mismatchRun(ctx, e, h, ev, check.S3.ID)
	if err != nil {
		return check.Verdict{}, err
	}
	return check.MismatchRejected(run), nil
}

// S3a: ... and the refusal carries the profile's mismatch status.
func mismatchStatus(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error) {
	run, err := mismatchRun(ctx, e, h, ev, check.S3a.ID)
	if err != nil {
		return check.Verdict{}, err
	}
	return check.MismatchStatus(run), nil
}

func mismatchRun(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence, scope string) (check.MismatchRun, error) {
	key, marker := e.NewKey(), e.NewMarker(scope)
	original, err := e.Body(marker, "100")
	if err != nil {
		return check.MismatchRun{}, err
	}
	other, err := e.Body(marker, "200")
	if err != nil {
		return check.MismatchRun{}, err
	}
	send := func(step, variant string, body []byte) history.Exchange {
		return e.Send(ctx, h, harness.Attempt{Step: step, Lane: e.Clean, Key: key, Body: body, Variant: variant})
	}
	run := check.MismatchRun{
		Original: send("original", "100", original),
		Mismatch: send("same key, other payload", "200", other),
		Again:    send("original again", "100", original),
		Want:     e.Target.Profile.Mismatch,
	}
	run.Reading, err = reading(ctx, e, ev, marker, "after the mismatch")
	return run, err
}

// burstRounds bounds S4's rounds of bursts. A race shows only when two
// requests meet inside its window, and on a busy machine a burst can miss
// a narrow window: the server may run its first request to the end
// before it reads the others (bench/BenchmarkDetection measures how often
// each kind of burst catches a 100 µs window). Each round is one more
// chance; a burst that shows a violation ends the check, so a correct
// target costs every round and a broken one stops at the first catch.
const burstRounds = 3

// S4: rounds of two same-key bursts, one released together on the clean
// lane, one spread by jittered latency on the faulty lane.
func noRaceDuplicates(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error) {
	var runs []check.BurstRun
	for round := 1; round <= burstRounds; round++ {
		for _, widened := range []bool{false, true} {
			r, err := roundBurst(ctx, e, h, ev, round, widened)
			if err != nil {
				return check.Verdict{}, err
			}
			runs = append(runs, r)
			if v := check.NoRaceDuplicates(runs...); v.Status != check.PASS {
				return v, nil
			}
		}
	}
	return check.NoRaceDuplicates(runs...), nil
}

// roundBurst is a round's tight burst, or its widened one.
func roundBurst(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence, round int, widened bool) (check.BurstRun, error) {
	step := "tight burst"
	if widened {
		step = "widened burst"
	}
	if round > 1 {
		step += fmt.Sprintf(" (round %d)", round)
	}
	if !widened {
		return burstRun(ctx, e, h, ev, e.CleanLanes(), step)
	}
	// The latency goes on every instance's faulty lane: the burst is
	// dealt across them.
	latency := harness.Latency{Delay: 2 * time.Millisecond, Jitter: 2 * time.Millisecond}
	for _, l := range e.FaultyLanes() {
		remove, err := l.Apply(latency)
		if err != nil {
			return check.BurstRun{}, err
		}
		DeferCleanup(remove)
		defer remove()
	}
	ev.Faults = append(ev.Faults, latency.Name()+" on the faulty lanes for the "+step)
	return burstRun(ctx, e, h, ev, e.FaultyLanes(), step)
}

// burstRun releases one burst spread across lanes (one per instance).
func burstRun(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence, lanes []*harness.Lane, step string) (check.BurstRun, error) {
	key, marker := e.NewKey(), e.NewMarker("S4")
	body, err := e.Body(marker, "100")
	if err != nil {
		return check.BurstRun{}, err
	}
	b, sends, err := e.Burst(ctx, h, harness.BurstSpec{Step: step, Lane: lanes[0], Spread: lanes, Key: key, Body: body, Variant: "100", Size: e.Settings.BurstSize})
	if err != nil {
		return check.BurstRun{}, err
	}
	ev.Bursts = append(ev.Bursts, b)
	follow := e.SendUntilSettled(ctx, h, harness.Attempt{Step: step + ": follow-up", Lane: e.Clean, Key: key, Body: body, Variant: "100"},
		e.Target.InProgressTimeout+e.Settings.RequestTimeout)
	r, err := reading(ctx, e, ev, marker, "after the "+step)
	if err != nil {
		return check.BurstRun{}, err
	}
	return check.BurstRun{Burst: b, Sends: sends, FollowUp: follow[len(follow)-1], Reading: r, InFlight: e.Target.Profile.InFlight}, nil
}
