package scenarios

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/targets"
)

// Core scenario S5: restarts and crashes. A target idemspec can neither
// restart nor crash gets SKIP with the reason.
var _ = Describe("restart", func() {
	It(check.S5a.Title, labels(check.S5a), SpecTimeout(specTimeout), run(check.S5a, restartRecovery))
	It(check.S5b.Title, labels(check.S5b), SpecTimeout(specTimeout), run(check.S5b, crashMidRequest))
})

// settleMargin is how long past the in-progress timeout S5b keeps
// retrying: at least one retry (they are at most a second apart) is sent
// after the timeout has certainly run out.
const settleMargin = 2 * time.Second

// S5a: create, restart gracefully the moment the answer arrives (nothing
// runs between the two), send the same request again. The timing is the
// point: a server that answers first and stores the key's record after
// (a hook on the send) loses the record only to a stop right after the
// answer, and then refuses the retry as still in flight.
func restartRecovery(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error) {
	if why := e.Target.CannotRestart(); why != "" {
		return check.Skip(check.S5a.ID, why), nil
	}
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
	return check.RestartRecovery(check.RestartRun{
		Original: original, Restart: restart, Retry: retry, Reading: r,
	}), nil
}

// S5b: kill the target while a create is being processed, start it
// again, then retry with the same key and bytes until the answer is no
// longer "in flight" or the in-progress timeout has surely passed.
func crashMidRequest(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error) {
	if why := e.Target.CannotCrash(); why != "" {
		return check.Skip(check.S5b.ID, why), nil
	}
	timeout := e.Target.InProgressTimeout
	// A timeout longer than any wait may be (24h is common) is not
	// waited out: the retries show for a while that the key is blocked,
	// and the verdict says what that means.
	capped := blockedTooLong(e)
	key, marker := e.NewKey(), e.NewMarker("S5b")
	body, err := e.Body(marker, "100")
	if err != nil {
		return check.Verdict{}, err
	}
	send := harness.Attempt{Step: "request crashed mid-way", Lane: e.Clean, Key: key, Body: body, Variant: "100"}
	crashed, crash, err := e.CrashMidRequest(ctx, h, send, crashRand())
	ev.Restarts = append(ev.Restarts, crash)
	if err != nil {
		return check.Verdict{}, err
	}
	ev.Notes = append(ev.Notes, fmt.Sprintf("crash point: %s; the target was healthy again %s after the kill",
		crash.Point, crash.Down.Round(time.Millisecond)))
	before, err := reading(ctx, e, ev, marker, "after the restart, before the retry")
	if err != nil {
		return check.Verdict{}, err
	}
	send.Step = "retry after the crash"
	wait := time.Until(crash.At.Add(timeout + settleMargin))
	if capped {
		wait = blockedProbe
	}
	inFlight := e.Target.Profile.InFlight
	retries := e.SendUntil(ctx, h, send, wait, func(x history.Exchange) bool { return check.Pending(x, inFlight) })
	last := retries[len(retries)-1]
	ev.Notes = append(ev.Notes, fmt.Sprintf("%d retries; the last was sent %s after the kill (in-progress timeout %s)",
		len(retries), last.Start.Sub(crash.At).Round(time.Millisecond), timeout))
	after, err := reading(ctx, e, ev, marker, "after the retries")
	if err != nil {
		return check.Verdict{}, err
	}
	return check.CrashMidRequest(check.CrashRun{
		Crashed: crashed, Crash: crash, Before: before, Retries: retries, After: after,
		InFlight: inFlight, InProgressTimeout: timeout, Capped: capped,
	}), nil
}

// blockedProbe is how long S5b retries a crashed request's key when the
// target's in-progress timeout is too long to wait out: long enough for a
// few retries (a second apart at most) to show that the key is blocked.
const blockedProbe = 3 * time.Second

// blockedTooLong says whether a crashed request's key may stay blocked
// longer than the harness may wait (targets.MaxWait).
func blockedTooLong(e *harness.Env) bool {
	return e.Target.InProgressTimeout+settleMargin > targets.MaxWait
}

// crashRand draws the crash delay from the suite's seed, so a run's
// crash point is reproducible with --seed.
func crashRand() *rand.Rand {
	return rand.New(rand.NewPCG(uint64(GinkgoRandomSeed()), 0x55b))
}
