package scenarios

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/targets"
)

// S5b: a crash mid-request never yields two resources or a stuck key.
var S5b = check.Define(Check{
	ID: "S5b", Group: "restart", Level: check.MUST, Clause: "core",
	Title:    "should leave exactly one resource and no stuck key when the target crashes mid-request and the request is retried",
	Why:      "A crash in the middle of a request leaves the effect without its key record (the retry executes again) or the key in progress for a day (the operation can never complete).",
	Fix:      "Commit the key record in the same transaction as the effect, and give the in-progress marker an expiry (a lease), so a retry after a crash is replayed or runs once the lease is past.",
	Stimulus: "Sends a create, kills the target (SIGKILL) while the request is in flight, starts it again and retries with the same key until it completes or the declared in-progress timeout passes.",
	Proof:    "The oracle's count (never two resources) and a retry that completed within the declared in-progress timeout.",
	Needs: func(t *targets.Target) string {
		if why := t.CannotCrash(); why != "" {
			return why
		}
		if t.OnTheWire() {
			return "the wire oracle sees only the answers the API wrote, and a crash mid-request can leave an execution with none: S5b needs an oracle that lists or looks up what exists"
		}
		return ""
	},
	Plan: func(Planning) check.Plan {
		return check.Plan{Requests: 4, MaxRequests: 2 + crashTries + harness.MaxSettleAttempts, MaxMarkers: crashTries,
			Restarts: 1, Faults: []string{"crash (SIGKILL) mid-request"}}
	},
	Run: serverRunWith(crashMidRequest),
})

// S5b: kill the target while a create is being processed, start it
// again, then retry with the same key and bytes until the answer is no
// longer "in flight" or the in-progress timeout has surely passed.
func crashMidRequest(ctx context.Context, in Inputs, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error) {
	timeout := e.Target.InProgressTimeout
	// A timeout longer than any wait may be (24h is common) is not
	// waited out: the retries show for a while that the key is blocked,
	// and the verdict says what that means.
	capped := e.BlockedTooLong()
	rng := crashRand(in.Seed)
	var (
		marker, missed string
		send           harness.Attempt
		crashed        history.Exchange
		crash          history.Restart
	)
	// A crash that came after the answer is no evidence. One drawn from
	// the crash window may be late once on a busy machine, and is tried
	// again with a fresh key; a crash point missed is missed every time.
	for try := 1; ; try++ {
		key := e.NewKey()
		marker = e.NewMarker("S5b")
		body, err := e.Body(marker, "100")
		if err != nil {
			return check.Verdict{}, err
		}
		send = harness.Attempt{Step: "request crashed mid-way", Lane: e.Clean, Key: key, Body: body, Variant: "100"}
		crashed, crash, err = e.CrashMidRequest(ctx, h, send, rng)
		ev.Restarts = append(ev.Restarts, crash)
		var late *harness.CrashMissed
		if !errors.As(err, &late) {
			if err != nil {
				return check.Verdict{}, err
			}
			break
		}
		if !late.Drawn || try == crashTries {
			missed = late.Error()
			break
		}
		ev.Notes = append(ev.Notes, fmt.Sprintf("crash %d of at most %d came after the answer (%s %d), tried again with a fresh key", try, crashTries, late.Outcome, late.Status))
	}
	if missed != "" {
		return CrashMidRequest(CrashRecord{Crashed: crashed, Crash: crash, Missed: missed}), nil
	}
	ev.Notes = append(ev.Notes, fmt.Sprintf("crash point: %s; the target was healthy again %s after the kill",
		crash.Point, crash.Down.Round(time.Millisecond)))
	before, err := reading(ctx, e, ev, marker, "after the restart, before the retry")
	if err != nil {
		return check.Verdict{}, err
	}
	send.Step = "retry after the crash"
	wait := time.Until(crash.At.Add(timeout + harness.SettleMargin))
	if capped {
		wait = blockedProbe
	}
	inFlight := e.Target.Profile.InFlight
	retries := e.SendUntil(ctx, h, send, wait, func(x history.Exchange) bool { return NotYet(x, inFlight) })
	last := retries[len(retries)-1]
	ev.Notes = append(ev.Notes, fmt.Sprintf("%d retries; the last was sent %s after the kill (in-progress timeout %s)",
		len(retries), last.Start.Sub(crash.At).Round(time.Millisecond), timeout))
	after, err := reading(ctx, e, ev, marker, "after the retries")
	if err != nil {
		return check.Verdict{}, err
	}
	return CrashMidRequest(CrashRecord{
		Crashed: crashed, Crash: crash, Before: before, Retries: retries, After: after,
		InFlight: inFlight, InProgressTimeout: timeout, Capped: capped,
	}), nil
}

// crashTries is how many crashes S5b aims at a request's work, each
// with a fresh key, when a crash drawn from the crash window comes after
// the answer.
const crashTries = 3

// blockedProbe is how long S5b retries a crashed request's key when the
// target's in-progress timeout is too long to wait out: long enough for a
// few retries (a second apart at most) to show that the key is blocked.
const blockedProbe = 3 * time.Second

// crashRand draws the crash delay from the run's seed, so a run's
// crash point is reproducible with --seed.
func crashRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x55b))
}

// CrashRecord is what S5b observed: the request in flight when the target
// was killed, the oracle after the target came back, the same-key
// retries until they settled, and the oracle after them.
type CrashRecord struct {
	Crashed history.Exchange
	Crash   history.Restart
	Before  check.Reading
	Retries []history.Exchange
	After   check.Reading
	// InFlight is the target's "still in flight" status; InProgressTimeout
	// is how long the target declares an abandoned request blocks its key.
	InFlight          int
	InProgressTimeout time.Duration
	// Capped is set when the in-progress timeout is longer than the
	// harness may wait: the retries stopped before it ran out.
	Capped bool
	// Missed says why no crash landed mid-request: the request was
	// answered before the crash's moment (harness.CrashMissed), and
	// nothing after it was sent.
	Missed string
}

// CrashMidRequest judges S5b. The request that was killed claimed its key
// before the crash, so the target's in-progress timeout ran out at the
// latest InProgressTimeout after the crash began: a retry sent after that
// and still answered "in flight" shows a key that can never complete.
func CrashMidRequest(rec CrashRecord) check.Verdict {
	if rec.Missed != "" {
		// A crash after the answer is a restart of a target that had
		// finished: a target that is not crash-safe passes it.
		return check.Errored("S5b", errors.New(rec.Missed))
	}
	if err := unreached(rec.Retries); err != nil {
		return check.Errored("S5b", err)
	}
	missing := unanswered(rec.Retries)
	var vs []check.Violation
	if rec.Before.Count > 1 {
		vs = append(vs, check.Violation{
			What:     fmt.Sprintf("the crash left %d resources for one key before any retry", rec.Before.Count),
			Expected: "at most 1",
			Observed: fmt.Sprint(rec.Before.Count),
		})
	}
	var inFlight []int
	for _, x := range rec.Retries {
		switch {
		case x.Outcome != history.OK || x.Is2xx():
		case NotYet(x, rec.InFlight):
			inFlight = append(inFlight, x.Seq)
		default:
			vs = append(vs, check.Violation{
				What:     fmt.Sprintf("%s: the retry after the crash was refused", x.Step),
				Expected: fmt.Sprintf("2xx, or %d (or another answer with Retry-After) until the in-progress timeout (%s) has passed", rec.InFlight, rec.InProgressTimeout),
				Observed: fmt.Sprint(x.Status),
				Seqs:     []int{x.Seq},
			})
		}
	}
	if n := len(rec.Retries); n > 0 {
		last := rec.Retries[n-1]
		if last.Outcome == history.OK && NotYet(last, rec.InFlight) {
			since := last.Start.Sub(rec.Crash.At)
			if rec.Capped && since < rec.InProgressTimeout {
				return blockedKey(rec, vs, len(inFlight))
			}
			if since < rec.InProgressTimeout {
				return check.Errored("S5b", fmt.Errorf("the harness stopped retrying %s after the crash, before the in-progress timeout (%s) had passed", since.Round(time.Millisecond), rec.InProgressTimeout))
			}
			vs = append(vs, check.Violation{
				What:     "the key stayed in progress past the declared in-progress timeout: the operation can never complete",
				Expected: fmt.Sprintf("a final answer to a retry sent %s or more after the crash", rec.InProgressTimeout),
				Observed: fmt.Sprintf("%d (still in progress) to a retry sent %s after the crash, %d such answers in all", last.Status, since.Round(time.Millisecond), len(inFlight)),
				Seqs:     inFlight,
			})
		}
	}
	answers := rec.Retries
	if rec.Crashed.Is2xx() {
		answers = append([]history.Exchange{rec.Crashed}, rec.Retries...)
	}
	id, idv := sameID(answers)
	vs = append(vs, idv...)
	for _, v := range countsOneOrNone(rec.After, id, missing) {
		v.What = "after the retries, " + v.What
		vs = append(vs, v)
	}
	return judged("S5b", vs, missing)
}

// blockedKey is S5b's verdict on a key still in flight when the harness
// stopped retrying, before a declared in-progress timeout longer than it
// may wait. A broken MUST found so far is a FAIL; otherwise the target
// did what it declares, which is a warning worth reading: the operation
// can neither complete nor be retried for that long.
func blockedKey(rec CrashRecord, vs []check.Violation, inFlight int) check.Verdict {
	if len(vs) > 0 {
		return check.Judge("S5b", vs...)
	}
	return check.Warned("S5b", check.Violation{
		What:     fmt.Sprintf("a crashed request blocks its key for the declared %s: the operation cannot complete or be retried for that long", rec.InProgressTimeout),
		Expected: "a key a retry can complete soon after a crash (a shorter in-progress timeout)",
		Observed: fmt.Sprintf("%d retries answered in flight, the last %s after the crash", inFlight,
			rec.Retries[len(rec.Retries)-1].Start.Sub(rec.Crash.At).Round(time.Millisecond)),
	})
}

// NotYet reports an answer that says "not yet, try again": the target's
// in-flight status, or any other refusal carrying Retry-After (a 429 or
// 503, say). Whether the status is the right one is K5's business; S5b
// judges whether the operation ever completes.
func NotYet(x history.Exchange, inFlight int) bool {
	if x.Outcome != history.OK || x.Is2xx() {
		return false
	}
	return x.Status == inFlight || (x.Status >= 400 && x.Headers["Retry-After"] != "")
}
