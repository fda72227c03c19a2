package scenarios

import (
	"context"
	"net/http"

	. "github.com/onsi/ginkgo/v2"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
)

// Client mode: the client under test against the reference server. Each
// check runs the client command on a fresh operation; C1, C2 and C5 share
// one shape of fault, judged three ways.
var _ = Describe("client", func() {
	It(check.C1.Title, labels(check.C1), SpecTimeout(specTimeout), clientRun(check.C1, lostUncommitted(check.SameKey)))
	It(check.C2.Title, labels(check.C2), SpecTimeout(specTimeout), clientRun(check.C2, lostUncommitted(check.SamePayload)))
	It(check.C3.Title, labels(check.C3), SpecTimeout(specTimeout), clientRun(check.C3, persistentOutage))
	It(check.C4.Title, labels(check.C4), SpecTimeout(specTimeout), clientRun(check.C4, lostCommitted))
	It(check.C5.Title, labels(check.C5), SpecTimeout(specTimeout), clientRun(check.C5, lostUncommitted(check.ReconcileFirst)))
	It(check.C6.Title, labels(check.C6), SpecTimeout(specTimeout), clientRun(check.C6, killedMidOperation))
	It(check.C7.Title, labels(check.C7), SpecTimeout(specTimeout), clientRun(check.C7, refused))
})

// loseFirstAnswer runs the client with the first create's answer lost:
// the lane holds the answer until the create has reached the server, then
// the fault is removed (which drops the held answer) and the client runs
// to its end on a healthy lane.
func loseFirstAnswer(ctx context.Context, t *trial, why string) error {
	remove, err := t.applyFault(harness.ResponseLoss{}, why)
	if err != nil {
		return err
	}
	p, err := t.start()
	if err != nil {
		return err
	}
	first, err := t.awaitCreate(ctx, p)
	remove()
	if err == nil {
		t.lost[first] = true
	}
	t.finish(p, "client")
	return nil
}

// C1, C2, C5: the first create fails without effect (503) and its answer
// is lost, so the client cannot know; a look-up would say "not found", and
// a resubmission is due.
func lostUncommitted(judge func(check.ClientTrial) check.Verdict) func(context.Context, *trial) (check.Verdict, error) {
	return func(ctx context.Context, t *trial) (check.Verdict, error) {
		t.ce.Server.FailNext(1, http.StatusServiceUnavailable)
		if err := loseFirstAnswer(ctx, t, "on the client's lane until the first create (answered 503, nothing committed) reached the server"); err != nil {
			return check.Verdict{}, err
		}
		run, err := t.judge(ctx)
		if err != nil {
			return check.Verdict{}, err
		}
		return judge(run), nil
	}
}

// C4: the first create commits and its answer is lost.
func lostCommitted(ctx context.Context, t *trial) (check.Verdict, error) {
	if err := loseFirstAnswer(ctx, t, "on the client's lane until the first create (committed) reached the server"); err != nil {
		return check.Verdict{}, err
	}
	run, err := t.judge(ctx)
	if err != nil {
		return check.Verdict{}, err
	}
	return check.NotFailedAfterCommit(run), nil
}

// C3: every create is answered 503 for the whole run.
func persistentOutage(ctx context.Context, t *trial) (check.Verdict, error) {
	return answeredAlways(ctx, t, http.StatusServiceUnavailable, "every create answered 503 by the server (nothing committed)", check.Bounded)
}

// answeredAlways runs the client once while the server answers every
// create with status, and judges the run.
func answeredAlways(ctx context.Context, t *trial, status int, fault string, judge func(check.ClientTrial) check.Verdict) (check.Verdict, error) {
	t.ce.Server.FailNext(1<<20, status)
	t.ev.Faults = append(t.ev.Faults, fault)
	p, err := t.start()
	if err != nil {
		return check.Verdict{}, err
	}
	t.finish(p, "client")
	run, err := t.judge(ctx)
	if err != nil {
		return check.Verdict{}, err
	}
	return judge(run), nil
}

// C6: the client's process group is killed while its create is in flight
// (committed at the server, answer held by the lane), then the client is
// started again with the same state directory.
func killedMidOperation(ctx context.Context, t *trial) (check.Verdict, error) {
	remove, err := t.applyFault(harness.ResponseLoss{}, "on the client's lane while the first client runs")
	if err != nil {
		return check.Verdict{}, err
	}
	p, err := t.start()
	if err != nil {
		return check.Verdict{}, err
	}
	first, err := t.awaitCreate(ctx, p)
	if err != nil {
		t.finish(p, "first client")
		return check.Verdict{}, err
	}
	t.lost[first] = true
	p.Kill("SIGKILL to its process group while its create was in flight (C6)")
	t.finish(p, "first client")
	remove()
	again, err := t.start()
	if err != nil {
		return check.Verdict{}, err
	}
	t.finish(again, "restarted client")
	run, err := t.judge(ctx)
	if err != nil {
		return check.Verdict{}, err
	}
	return check.OneResourceAfterRestart(run), nil
}

// C7: every create is refused with 422 (as for a key reused with another
// payload): final for the request.
func refused(ctx context.Context, t *trial) (check.Verdict, error) {
	return answeredAlways(ctx, t, http.StatusUnprocessableEntity, "every create refused 422 by the server", check.NoRetryOfRefusal)
}
