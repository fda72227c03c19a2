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
var S5a = define(Check{
	ID: "S5a", Group: "restart", Level: check.MUST, Clause: "core; draft-ietf-httpapi-idempotency-key-header §2.6",
	Title: "should replay the original result to a retry after the target restarted",
	Needs: func(t *targets.Target) string { return t.CannotRestart() },
	Plan:  func(Planning) Planned { return Planned{Requests: 3, MaxRequests: 3, Restarts: 1} },
	Run:   restartRecovery,
})

// S5a: create, restart gracefully the moment the answer arrives (nothing
// runs between the two), send the same request again. The timing is the
// point: a server that answers first and stores the key's record after
// (a hook on the send) loses the record only to a stop right after the
// answer, and then refuses the retry as still in flight.
func restartRecovery(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error) {
	key, marker := e.NewKey(), e.NewMarker("S5a")
	body, err := e.Body(marker, "100")
	if err != nil {
		return check.Verdict{}, err
	}
	send := harness.Attempt{Step: "original", Lane: e.Clean, Key: key, Body: body, Variant: "100"}
	original := e.Send(ctx, h, send)
	restart, err := e.Restart(ctx)
	ev.Restarts = append(ev.Restarts, restart)
	if err != nil {
		return check.Verdict{}, err
	}
	ev.Notes = append(ev.Notes, fmt.Sprintf("graceful restart begun %s after the answer to seq %d arrived (aimed right after an answer: a record stored after answering is lost there); down for %s",
		restart.At.Sub(original.Start.Add(original.Duration)).Round(time.Microsecond), original.Seq, restart.Down.Round(time.Millisecond)))
	send.Step = "same request after the restart"
	retry := e.Send(ctx, h, send)
	r, err := reading(ctx, e, ev, marker, "after the restart and the retry")
	if err != nil {
		return check.Verdict{}, err
	}
	return RestartRecovery(RestartRecord{
		Original: original, Restart: restart, Retry: retry, Reading: r,
	}), nil
}

// RestartRecord is what S5a observed: a completed create, a graceful
// restart, and the same request again.
type RestartRecord struct {
	Original history.Exchange
	Restart  history.Restart
	Retry    history.Exchange
	Reading  check.Reading
}

// RestartRecovery judges S5a.
func RestartRecovery(rec RestartRecord) check.Verdict {
	xs := []history.Exchange{rec.Original, rec.Retry}
	if err := unreached(xs); err != nil {
		return check.Errored("S5a", err)
	}
	if rec.Original.Outcome == history.OK && !rec.Original.Is2xx() {
		return check.Errored("S5a", fmt.Errorf("the original request was not accepted (status %d), so there is no record to survive the restart", rec.Original.Status))
	}
	vs := unanswered(xs)
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
	vs = append(vs, countsOne(rec.Reading, id)...)
	return check.Judge("S5a", vs...)
}
