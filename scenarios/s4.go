package scenarios

import (
	. "github.com/onsi/ginkgo/v2"

	"context"
	"fmt"
	"time"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
)

// S4: "N requests with one key released at the same instant: exactly one
// resource; every 2xx carries the same id; the others are 409 or replays".
// The others must be refusals (4xx, or the profile's in-flight status);
// which refusal status they carry is judged by K5, not here.
var S4 = check.Define(Check{
	ID: "S4", Group: "core", Level: check.MUST, Clause: "core; draft-ietf-httpapi-idempotency-key-header §2.7 (concurrent requests)",
	Title:    "should execute a burst of concurrent same-key requests exactly once",
	Why:      "Two copies of a request that arrive together (a timeout and a fast retry, two workers) both pass a check-then-insert and both execute: the classic double charge.",
	Fix:      "Claim the key atomically before doing the work (a unique constraint with INSERT ... ON CONFLICT, or a compare-and-set) and mark it in progress, so concurrent duplicates are refused (409) or wait for the result.",
	Stimulus: "Opens the connections first, then releases a burst of same-key requests at one instant (tight), and again through jittered latency (widened), up to three rounds.",
	Proof:    "The oracle's count (one resource), one id across every 2xx and the others refused; the bursts' release and arrival spreads are in the report.",
	Plan: func(p Planning) check.Plan {
		bursts := 2 * burstRounds
		return check.Plan{Requests: bursts * (p.Burst + 2), MaxRequests: bursts * (p.Burst + harness.MaxSettleAttempts + 1), Markers: bursts,
			Faults: []string{widening.Name() + " on the faulty lanes, widened bursts"}}
	},
	Run: serverRun(noRaceDuplicates),
})

// widening spreads S4's second burst of a round: latency shifts arrivals
// rather than bunching them, so it widens the window a check-then-insert
// race needs.
var widening = harness.Latency{Delay: 2 * time.Millisecond, Jitter: 2 * time.Millisecond}

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
	// Bursts 2r-1 and 2r are round r's tight and widened ones.
	return untilCaught(2*burstRounds, func(i int) (BurstRecord, error) {
		return roundBurst(ctx, e, h, ev, (i+1)/2, i%2 == 0)
	}, NoRaceDuplicates)
}

// roundBurst is a round's tight burst, or its widened one.
func roundBurst(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence, round int, widened bool) (BurstRecord, error) {
	step := "tight burst"
	if widened {
		step = "widened burst"
	}
	if round > 1 {
		step += fmt.Sprintf(" (round %d)", round)
	}
	if !widened {
		return burstRecord(ctx, e, h, ev, e.CleanLanes(), step)
	}
	// The latency goes on every instance's faulty lane: the burst is
	// dealt across them.
	latency := widening
	for _, l := range e.FaultyLanes() {
		remove, err := l.Apply(latency)
		if err != nil {
			return BurstRecord{}, err
		}
		DeferCleanup(remove)
		defer remove()
	}
	ev.Faults = append(ev.Faults, latency.Name()+" on the faulty lanes for the "+step)
	return burstRecord(ctx, e, h, ev, e.FaultyLanes(), step)
}

// burstRecord releases one burst spread across lanes (one per instance)
// and records what it found.
func burstRecord(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence, lanes []*harness.Lane, step string) (BurstRecord, error) {
	key, marker := e.NewKey(), e.NewMarker("S4")
	body, err := e.Body(marker, "100")
	if err != nil {
		return BurstRecord{}, err
	}
	b, sends, err := e.Burst(ctx, h, harness.BurstSpec{Step: step, Lane: lanes[0], Spread: lanes, Key: key, Body: body, Variant: "100", Size: e.Settings.BurstSize})
	if err != nil {
		return BurstRecord{}, err
	}
	ev.Bursts = append(ev.Bursts, b)
	follow := e.SendUntilSettled(ctx, h, harness.Attempt{Step: step + ": follow-up", Lane: e.Clean, Key: key, Body: body, Variant: "100"},
		e.Target.InProgressTimeout+e.Settings.RequestTimeout)
	r, err := reading(ctx, e, ev, marker, "after the "+step)
	if err != nil {
		return BurstRecord{}, err
	}
	return BurstRecord{Burst: b, Sends: sends, FollowUp: follow[len(follow)-1], Reading: r, InFlight: e.Target.Profile.InFlight}, nil
}

// BurstRecord is one same-key burst as S4 observed it, with the follow-up
// request sent after the burst settled.
type BurstRecord struct {
	Burst    history.Burst
	Sends    []history.Exchange
	FollowUp history.Exchange
	Reading  check.Reading
	InFlight int
}

// NoRaceDuplicates judges S4 over one or more bursts.
func NoRaceDuplicates(runs ...BurstRecord) check.Verdict {
	var all []history.Exchange
	for _, r := range runs {
		all = append(all, r.Sends...)
	}
	if err := unreached(all); err != nil {
		return check.Errored("S4", err)
	}
	var vs []check.Violation
	var missing []history.Exchange
	for _, r := range runs {
		label := fmt.Sprintf("burst of %d on the %s lane", r.Burst.Size, r.Burst.Lane)
		if r.Burst.Fault != "" {
			label += " with " + r.Burst.Fault
		}
		xs := append(append([]history.Exchange(nil), r.Sends...), r.FollowUp)
		lost := unanswered(xs)
		missing = append(missing, lost...)
		// A refusal (4xx) executed nothing, which is all S4 asks; whether
		// it carried the profile's in-flight status is K5's judgement.
		for _, x := range r.Sends {
			if x.Outcome == history.OK && !x.Is2xx() && !is4xx(x.Status) && x.Status != r.InFlight {
				vs = append(vs, check.Violation{
					What:     fmt.Sprintf("%s: %s was neither a success nor a refusal", label, x.Step),
					Expected: fmt.Sprintf("2xx, 4xx or %d", r.InFlight),
					Observed: fmt.Sprint(x.Status),
					Seqs:     []int{x.Seq},
				})
			}
		}
		if r.FollowUp.Outcome == history.OK && !r.FollowUp.Is2xx() {
			vs = append(vs, check.Violation{
				What:     label + ": the request after the burst was not answered with the stored result",
				Expected: "2xx", Observed: fmt.Sprint(r.FollowUp.Status), Seqs: []int{r.FollowUp.Seq},
			})
		}
		id, idv := sameID(xs)
		for i := range idv {
			idv[i].What = label + ": " + idv[i].What
		}
		vs = append(vs, idv...)
		for _, v := range countsOneOrNone(r.Reading, id, lost) {
			v.What = label + ": " + v.What
			vs = append(vs, v)
		}
	}
	return judged("S4", vs, missing)
}
