package harness

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/targets"
)

// MaxSettleAttempts bounds SendUntilSettled however long the wait allows.
const MaxSettleAttempts = 50

// SendUntilSettled sends the same attempt again while the target answers
// "still in flight" (the profile's status), honouring Retry-After (capped
// at a second), until another answer arrives or wait passes. Every send is
// its own exchange, numbered "step", "step (2)", ...
func (e *Env) SendUntilSettled(ctx context.Context, h *history.History, a Attempt, wait time.Duration) []history.Exchange {
	return e.SendUntil(ctx, h, a, wait, func(x history.Exchange) bool { return x.Status == e.Target.Profile.InFlight })
}

// SendUntil is SendUntilSettled with the caller's idea of an answer that
// means "not yet, try again": pending sees only answered exchanges.
//
// wait is capped at targets.MaxWait, whatever the target declares: a key
// blocked for hours is reported by the checks, never waited out.
func (e *Env) SendUntil(ctx context.Context, h *history.History, a Attempt, wait time.Duration, pending func(history.Exchange) bool) []history.Exchange {
	wait = min(wait, targets.MaxWait)
	until := time.Now().Add(wait)
	step := a.Step
	backoff := 50 * time.Millisecond
	var out []history.Exchange
	for i := 1; i <= MaxSettleAttempts; i++ {
		if i > 1 {
			a.Step = fmt.Sprintf("%s (%d)", step, i)
		}
		x := e.Send(ctx, h, a)
		out = append(out, x)
		if x.Outcome != history.OK || !pending(x) {
			return out
		}
		pause := backoff
		if secs, err := strconv.Atoi(x.Headers["Retry-After"]); err == nil {
			pause = min(time.Duration(secs)*time.Second, time.Second)
		}
		// The cap grows with the wait, so the attempt bound never ends a
		// long wait (a 30s in-progress timeout, say) early.
		backoff = min(2*backoff, max(500*time.Millisecond, 2*wait/MaxSettleAttempts))
		if time.Now().Add(pause).After(until) {
			return out
		}
		if !a.pauseFor(ctx, pause) {
			return out
		}
	}
	return out
}

// pauseFor waits d between two attempts, or until ctx is done (false).
func (a Attempt) pauseFor(ctx context.Context, d time.Duration) bool {
	if a.Pause != nil {
		return a.Pause(ctx, d)
	}
	return Sleep(ctx, d)
}

// Sleep waits d, or until ctx is done (false).
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// SettleMargin is how long past a crashed request's in-progress timeout
// the retries go on: at least one retry (they are at most a second apart)
// is sent after the timeout has certainly run out.
const SettleMargin = 2 * time.Second

// BlockedTooLong says whether a crashed request's key may stay blocked
// longer than the harness may wait (targets.MaxWait): the target's
// declared in-progress timeout is then reported, never waited out.
func (e *Env) BlockedTooLong() bool {
	return e.Target.InProgressTimeout+SettleMargin > targets.MaxWait
}
