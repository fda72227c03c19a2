package scenarios

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
)

// The client checks C1-C7 judge one trial of the client command each;
// these are what their judges share.

// loseFirstAnswer runs the client with the first create's answer lost:
// the lane holds the answer until the create has reached the server, then
// the fault is removed (which drops the held answer) and the client runs
// to its end on a healthy lane.
func loseFirstAnswer(ctx context.Context, t *trial, why string) error {
	remove, err := t.applyFault(harness.ResponseLoss{}, why)
	if err != nil {
		return err
	}
	p, err := t.start(ctx)
	if err != nil {
		return err
	}
	first, err := t.awaitCreate(ctx, p)
	remove()
	if err == nil {
		t.lost[first] = true
	}
	t.finish(ctx, p, "client")
	return nil
}

// C1, C2, C5: the first create fails without effect (503) and its answer
// is lost, so the client cannot know; a look-up would say "not found", and
// a resubmission is due.
func lostUncommitted(judge func(ClientTrial) check.Verdict) func(context.Context, *trial) (check.Verdict, error) {
	return func(ctx context.Context, t *trial) (check.Verdict, error) {
		t.ce.server().FailNext(1, http.StatusServiceUnavailable)
		if err := loseFirstAnswer(ctx, t, "on the client's lane until the first create (answered 503, nothing committed) reached the server"); err != nil {
			return check.Verdict{}, err
		}
		return t.judgedBy(ctx, judge)
	}
}

// answeredAlways runs the client once while the server answers every
// create with status, and judges the run.
func answeredAlways(ctx context.Context, t *trial, status int, fault string, judge func(ClientTrial) check.Verdict) (check.Verdict, error) {
	t.ce.server().FailNext(1<<20, status)
	t.ev.Faults = append(t.ev.Faults, fault)
	p, err := t.start(ctx)
	if err != nil {
		return check.Verdict{}, err
	}
	t.finish(ctx, p, "client")
	return t.judgedBy(ctx, judge)
}

// judgedBy reads the client's trial and judges it with judge.
func (t *trial) judgedBy(ctx context.Context, judge func(ClientTrial) check.Verdict) (check.Verdict, error) {
	rec, err := t.judge(ctx)
	if err != nil {
		return check.Verdict{}, err
	}
	return judge(rec), nil
}

// ClientTrial is what one client check observed.
type ClientTrial struct {
	Requests []check.ServerRequest
	Exits    []check.ClientExit
	Budget   int
	Deadline time.Duration
	// Slack is the start-up and scheduling time allowed past the deadline.
	Slack time.Duration
	// Resources is the oracle's count for the trial's marker at the end
	// (for an unmodified program, the distinct resources the API's
	// answers on the wire created in the trial).
	Resources int
	// Expected is how many resources one run makes, as its baseline run
	// without faults showed (0: one, the contract's single create).
	Expected int
	// NoKey says why no key can be judged (the operation takes none).
	NoKey string
	// Unmodified says the program was not written to idemspec's client
	// contract: it need not print a result, so a run without one leaves
	// C4 nothing to judge rather than failing it.
	Unmodified bool
}

// expected is how many resources one run creates: the trial must leave
// as many.
func (t ClientTrial) expected() int { return max(t.Expected, 1) }

func (t ClientTrial) creates() []check.ServerRequest {
	var out []check.ServerRequest
	for _, r := range t.Requests {
		if r.Kind == "create" {
			out = append(out, r)
		}
	}
	return out
}

func seqs(rs ...check.ServerRequest) []int {
	out := make([]int, 0, len(rs))
	for _, r := range rs {
		out = append(out, r.Seq)
	}
	return out
}

// noCreates is the error of a trial in which the client never sent a
// create: there is nothing to judge, which says nothing of the client's
// retries (a program that never started its work, a variable it does not
// read, a machine so busy its start-up outlasted the deadline), so the
// check is ERROR rather than FAIL.
func noCreates(id string, t ClientTrial) *check.Verdict {
	if len(t.creates()) > 0 {
		return nil
	}
	why := "the client sent no create request, so there is nothing to judge"
	for _, x := range t.Exits {
		if x.Killed != "" {
			why += " (killed: " + x.Killed + ")"
			break
		}
	}
	v := check.Errored(id, errors.New(why))
	return &v
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
