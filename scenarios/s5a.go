package scenarios

import (
	"context"
	"fmt"
	"time"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/targets"
)

// S5a: the key record survives a restart.
var S5a = check.Define(Check{
	ID: "S5a", Group: "restart", Level: check.MUST, Clause: "core; draft-ietf-httpapi-idempotency-key-header §2.6",
	Title:    "should replay the original result to a retry after the target restarted",
	Why:      "A key record kept only in memory, or stored after the answer was sent, is lost on a deploy or restart, and the first retry after it executes again.",
	Fix:      "Keep the key record in durable storage (the database the effect goes to) and write it before the answer is sent, never in process memory or an asynchronous hook after the send.",
	Stimulus: "Creates, restarts the target through its restart hook and retries with the same key, for several rounds (one restart lands right after an answer).",
	Proof:    "Each retry's id equals its original's, and the oracle counts one resource per key.",
	Needs:    func(t *targets.Target) string { return t.CannotRestart() },
	Plan: func(Planning) check.Plan {
		return check.Plan{Requests: 3 * restartRounds, MaxRequests: 3 * restartRounds, Restarts: restartRounds, Markers: restartRounds}
	},
	Run: serverRun(restartRecovery),
})

// restartRounds bounds S5a's rounds. A server that answers first and
// stores the key's record after (a hook on the send) loses the record
// only to a stop inside that gap, which for a write to a Redis on
// loopback is about 100 µs; a busy machine can let one round's restart
// land after it. Each round is one more chance; a round that shows a
// violation ends the check, so a correct target costs every round and a
// broken one stops at the first catch (docs/RESTARTS.md gives the
// timing measured against record-after-answer-quick).
const restartRounds = 5

// S5a: rounds of: create, restart gracefully the instant the answer's
// first byte arrives (nothing of the harness runs between the two), send
// the same request again.
func restartRecovery(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error) {
	return untilCaught(restartRounds, func(round int) (RestartRecord, error) {
		return restartRound(ctx, e, h, ev, round)
	}, RestartRecovery)
}

// restartRound is one create, the restart aimed at its answer, and the
// retry.
func restartRound(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence, round int) (RestartRecord, error) {
	key, marker := e.NewKey(), e.NewMarker("S5a")
	body, err := e.Body(marker, "100")
	if err != nil {
		return RestartRecord{}, err
	}
	suffix := ""
	if round > 1 {
		suffix = fmt.Sprintf(" (round %d)", round)
	}
	send := harness.Attempt{Step: "original" + suffix, Lane: e.Clean, Key: key, Body: body, Variant: "100"}
	original, restart, gap, err := e.RestartOnAnswer(ctx, h, send)
	ev.Restarts = append(ev.Restarts, restart)
	if err != nil {
		return RestartRecord{}, err
	}
	ev.Notes = append(ev.Notes, fmt.Sprintf("round %d: graceful restart begun %s after the first byte of the answer to seq %d arrived (aimed inside the gap a record stored after answering leaves); down for %s",
		round, gap.Round(time.Microsecond), original.Seq, restart.Down.Round(time.Millisecond)))
	if rec := (RestartRecord{Original: original, Restart: restart}); Cut(rec) {
		ev.Notes = append(ev.Notes, fmt.Sprintf("round %d: the server did not finish the request in flight when stopped: the answer to seq %d was cut after its first byte (%s); it counts as maybe-applied, and the retry and the oracle say whether it was applied",
			round, original.Seq, original.Error))
	}
	send.Step = "same request after the restart" + suffix
	retry := e.Send(ctx, h, send)
	r, err := reading(ctx, e, ev, marker, "after the restart and the retry"+suffix)
	if err != nil {
		return RestartRecord{}, err
	}
	return RestartRecord{Original: original, Restart: restart, Retry: retry, Reading: r}, nil
}

// RestartRecord is what S5a observed: a completed create, a graceful
// restart, and the same request again.
type RestartRecord struct {
	Original history.Exchange
	Restart  history.Restart
	Retry    history.Exchange
	Reading  check.Reading
}

// RestartRecovery judges S5a over its rounds: each round's record
// survived its restart.
func RestartRecovery(rounds ...RestartRecord) check.Verdict {
	var vs []check.Violation
	var missing []history.Exchange
	for _, rec := range rounds {
		v, lost := restartRecovered(rec)
		if v.Status == check.ERROR {
			return v
		}
		vs = append(vs, v.Violations...)
		missing = append(missing, lost...)
	}
	return judged("S5a", vs, missing)
}

// restartRecovered judges one round by its effect: after the restart
// and the retry, one resource for the key, and the retry names it. An
// original whose answer began and was then cut (a target that stops
// without finishing its requests in flight) is maybe-applied, never a
// violation by itself: the retry and the oracle say what became of it.
// It returns the round's violations and the exchanges that got no
// answer otherwise (judged).
func restartRecovered(rec RestartRecord) (check.Verdict, []history.Exchange) {
	xs := []history.Exchange{rec.Original, rec.Retry}
	if err := unreached(xs); err != nil {
		return check.Errored("S5a", err), nil
	}
	if s := rec.Original.Status; s != 0 && (s < 200 || s > 299) {
		return check.Errored("S5a", fmt.Errorf("the original request was not accepted (status %d), so there is no record to survive the restart", rec.Original.Status)), nil
	}
	if Cut(rec) {
		xs = xs[1:]
	}
	missing := unanswered(xs)
	var vs []check.Violation
	if rec.Retry.Outcome == history.OK && !rec.Retry.Is2xx() {
		vs = append(vs, check.Violation{
			What:     "after the restart, the same request with the same key was refused",
			Expected: "2xx (the original answer, replayed)",
			Observed: fmt.Sprint(rec.Retry.Status),
			Seqs:     []int{rec.Retry.Seq},
		})
	}
	id, idv := sameID(xs)
	for _, v := range idv {
		v.What = "the key record did not survive the restart: " + v.What
		vs = append(vs, v)
	}
	// The record survived if the retry names the original's resource;
	// how faithfully the answer is replayed is K4's to judge.
	vs = append(vs, countsOneOrNone(rec.Reading, id, missing)...)
	return check.Judge("S5a", vs...), missing
}

// Cut reports whether the round's restart cut the original's answer:
// it began (the restart was aimed at its first byte) and did not end.
func Cut(rec RestartRecord) bool {
	return rec.Original.Outcome != history.OK && rec.Restart.Point == harness.OnFirstByte
}
