package check

import (
	"fmt"
	"time"

	"github.com/idemspec/idemspec/harness/history"
)

// The restart group, core scenario S5: "create, restart the
// target, retry; and crash (SIGKILL) while a request is in flight,
// restart, retry: the key record survives: same id, one resource; after
// a crash never two resources, and the key is not stuck forever (the
// retry completes within the target's declared in-progress timeout)".

// S5a: the key record survives a restart.
var S5a = Register(Check{
	ID: "S5a", Group: "restart", Level: MUST, Clause: "core; draft-ietf-httpapi-idempotency-key-header §2.6",
	Title: "should replay the original result to a retry after the target restarted",
})

// S5b: a crash mid-request never yields two resources or a stuck key.
var S5b = Register(Check{
	ID: "S5b", Group: "restart", Level: MUST, Clause: "core",
	Title: "should leave exactly one resource and no stuck key when the target crashes mid-request and the request is retried",
})

// RestartRun is what S5a observed: a completed create, a graceful
// restart, and the same request again.
type RestartRun struct {
	Original history.Exchange
	Restart  history.Restart
	Retry    history.Exchange
	Reading  Reading
}

// RestartRecovery judges S5a.
func RestartRecovery(run RestartRun) Verdict {
	xs := []history.Exchange{run.Original, run.Retry}
	if err := unreached(xs); err != nil {
		return Errored(S5a.ID, err)
	}
	if run.Original.Outcome == history.OK && !run.Original.Is2xx() {
		return Errored(S5a.ID, fmt.Errorf("the original request was not accepted (status %d), so there is no record to survive the restart", run.Original.Status))
	}
	vs := unanswered(xs)
	if run.Retry.Outcome == history.OK && !run.Retry.Is2xx() {
		vs = append(vs, Violation{
			What:     "after the restart, the same request with the same key was refused",
			Expected: "2xx (the original answer, replayed)",
			Observed: fmt.Sprint(run.Retry.Status),
			Seqs:     []int{run.Retry.Seq},
		})
	}
	id, idv := sameID(xs)
	for _, v := range idv {
		v.What = "the key record did not survive the restart: " + v.What
		vs = append(vs, v)
	}
	// The record survived if the retry names the original's resource;
	// how faithfully the answer is replayed is K4's to judge.
	vs = append(vs, oneResource(run.Reading, id)...)
	return Judge(S5a.ID, vs...)
}

// CrashRun is what S5b observed: the request in flight when the target
// was killed, the oracle after the target came back, the same-key
// retries until they settled, and the oracle after them.
type CrashRun struct {
	Crashed history.Exchange
	Crash   history.Restart
	Before  Reading
	Retries []history.Exchange
	After   Reading
	// InFlight is the target's "still in flight" status; InProgressTimeout
	// is how long the target declares an abandoned request blocks its key.
	InFlight          int
	InProgressTimeout time.Duration
	// Capped is set when the in-progress timeout is longer than the
	// harness may wait: the retries stopped before it ran out.
	Capped bool
}

// CrashMidRequest judges S5b. The request that was killed claimed its key
// before the crash, so the target's in-progress timeout ran out at the
// latest InProgressTimeout after the crash began: a retry sent after that
// and still answered "in flight" shows a key that can never complete.
func CrashMidRequest(run CrashRun) Verdict {
	if err := unreached(run.Retries); err != nil {
		return Errored(S5b.ID, err)
	}
	vs := unanswered(run.Retries)
	if run.Before.Count > 1 {
		vs = append(vs, Violation{
			What:     fmt.Sprintf("the crash left %d resources for one key before any retry", run.Before.Count),
			Expected: "at most 1",
			Observed: fmt.Sprint(run.Before.Count),
		})
	}
	var inFlight []int
	for _, x := range run.Retries {
		switch {
		case x.Outcome != history.OK || x.Is2xx():
		case Pending(x, run.InFlight):
			inFlight = append(inFlight, x.Seq)
		default:
			vs = append(vs, Violation{
				What:     fmt.Sprintf("%s: the retry after the crash was refused", x.Step),
				Expected: fmt.Sprintf("2xx, or %d (or another answer with Retry-After) until the in-progress timeout (%s) has passed", run.InFlight, run.InProgressTimeout),
				Observed: fmt.Sprint(x.Status),
				Seqs:     []int{x.Seq},
			})
		}
	}
	if n := len(run.Retries); n > 0 {
		last := run.Retries[n-1]
		if last.Outcome == history.OK && Pending(last, run.InFlight) {
			since := last.Start.Sub(run.Crash.At)
			if run.Capped && since < run.InProgressTimeout {
				return blockedKey(run, vs, len(inFlight))
			}
			if since < run.InProgressTimeout {
				return Errored(S5b.ID, fmt.Errorf("the harness stopped retrying %s after the crash, before the in-progress timeout (%s) had passed", since.Round(time.Millisecond), run.InProgressTimeout))
			}
			vs = append(vs, Violation{
				What:     "the key stayed in progress past the declared in-progress timeout: the operation can never complete",
				Expected: fmt.Sprintf("a final answer to a retry sent %s or more after the crash", run.InProgressTimeout),
				Observed: fmt.Sprintf("%d (still in progress) to a retry sent %s after the crash, %d such answers in all", last.Status, since.Round(time.Millisecond), len(inFlight)),
				Seqs:     inFlight,
			})
		}
	}
	answers := run.Retries
	if run.Crashed.Is2xx() {
		answers = append([]history.Exchange{run.Crashed}, run.Retries...)
	}
	id, idv := sameID(answers)
	vs = append(vs, idv...)
	for _, v := range oneResource(run.After, id) {
		v.What = "after the retries, " + v.What
		vs = append(vs, v)
	}
	return Judge(S5b.ID, vs...)
}

// blockedKey is S5b's verdict on a key still in flight when the harness
// stopped retrying, before a declared in-progress timeout longer than it
// may wait. A broken MUST found so far is a FAIL; otherwise the target
// did what it declares, which is a warning worth reading: the operation
// can neither complete nor be retried for that long.
func blockedKey(run CrashRun, vs []Violation, inFlight int) Verdict {
	if len(vs) > 0 {
		return Judge(S5b.ID, vs...)
	}
	return Warned(S5b.ID, Violation{
		What:     fmt.Sprintf("a crashed request blocks its key for the declared %s: the operation cannot complete or be retried for that long", run.InProgressTimeout),
		Expected: "a key a retry can complete soon after a crash (a shorter in-progress timeout)",
		Observed: fmt.Sprintf("%d retries answered in flight, the last %s after the crash", inFlight,
			run.Retries[len(run.Retries)-1].Start.Sub(run.Crash.At).Round(time.Millisecond)),
	})
}

// Pending reports an answer that says "not yet, try again": the target's
// in-flight status, or any other refusal carrying Retry-After (a 429 or
// 503, say). Whether the status is the right one is K5's business; S5b
// judges whether the operation ever completes.
func Pending(x history.Exchange, inFlight int) bool {
	if x.Outcome != history.OK || x.Is2xx() {
		return false
	}
	return x.Status == inFlight || (x.Status >= 400 && x.Headers["Retry-After"] != "")
}
