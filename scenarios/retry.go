package scenarios

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/harness/retry"
)

// S6: the reference retrying client (harness/retry) against the target,
// through persistent faults, then resumed from its journal.
var _ = Describe("retry", func() {
	It(check.S6.Title, labels(check.S6), SpecTimeout(specTimeout), run(check.S6, boundedRetries))
})

// deadlineSlack is the scheduling delay S6 allows past a client's
// deadline: the client bounds itself, the machine may be busy.
const deadlineSlack = 500 * time.Millisecond

// persistentFault is one fault S6 holds on the faulty lane while the
// client works.
type persistentFault struct {
	fault harness.Fault
	// reads: the client's look-ups go through the fault too, so it cannot
	// reconcile until the fault clears.
	reads bool
	// lands: the creates reach the target, which commits them, before
	// the answer is lost.
	lands bool
}

func boundedRetries(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error) {
	dir, err := os.MkdirTemp("", "idemspec-s6-")
	if err != nil {
		return check.Verdict{}, fmt.Errorf("journal directory: %w", err)
	}
	DeferCleanup(os.RemoveAll, dir)
	run := check.RetryRun{Reconcile: e.Target.Reconcile, Slack: deadlineSlack}
	faults := []persistentFault{
		// Creates are swallowed; the client can still read, finds nothing
		// each time, and resubmits with its one key until the budget.
		{fault: harness.Blackhole{}},
		// Creates land and commit but every answer, look-ups included, is
		// lost: the client cannot learn anything until the fault clears.
		{fault: harness.ResponseLoss{}, reads: true, lands: true},
	}
	for _, f := range faults {
		op, err := retryThrough(ctx, e, h, ev, dir, f)
		if err != nil {
			return check.Verdict{}, err
		}
		run.Ops = append(run.Ops, op)
	}
	run.History = h.Exchanges()
	ev.Tables = append(ev.Tables, clientTable(run.Ops))
	return check.BoundedRetries(run), nil
}

// landingTries bounds how often S6 repeats an operation whose creates
// were meant to land but did not reach the target before the client gave
// up (a busy machine): without a commit, "the answer was lost after the
// target committed" would go untested.
const landingTries = 3

// retryThrough runs one operation under f, clears f, and resumes the
// operation in a new client over the same journal, as a restarted
// process would.
func retryThrough(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence, dir string, f persistentFault) (check.RetryOp, error) {
	what := "the client's creates"
	if f.reads {
		what = "every request of the client"
	}
	ev.Faults = append(ev.Faults, fmt.Sprintf("%s on the faulty lane for %s until the budget or the deadline", f.fault.Name(), what))
	for try := 1; ; try++ {
		op, s, err := underFault(ctx, e, h, dir, f)
		if err != nil {
			return op, err
		}
		if f.lands {
			// The lost answers' requests finish on the target; resume
			// once the oracle shows the commit (an event, not a timer).
			if _, err := e.AwaitCommit(ctx, s.marker); err != nil {
				note := fmt.Sprintf("%s, try %d: no create reached the target before the client gave up (%v)", op.Name, try, err)
				if try < landingTries {
					ev.Notes = append(ev.Notes, note+"; again with a new operation")
					continue
				}
				ev.Notes = append(ev.Notes, note+"; a longer --retry-timeout may help")
			}
		}
		s.phase, s.label, s.policy = "resumed", op.Name+", resumed", resumePolicy(e.Settings)
		if _, op.Resumed, err = runClient(ctx, e, h, s); err != nil {
			return op, err
		}
		if op.Reading, err = reading(ctx, e, ev, s.marker, "after the "+op.Name+" run and the resumed run"); err != nil {
			return op, err
		}
		return op, nil
	}
}

// underFault runs a new operation while f is on the faulty lane, and
// returns it with the spec to resume it by.
func underFault(ctx context.Context, e *harness.Env, h *history.History, dir string, f persistentFault) (check.RetryOp, clientSpec, error) {
	marker := e.NewMarker("S6")
	op := check.RetryOp{Name: f.fault.Name(), Fault: f.fault.Name()}
	body, err := e.Body(marker, "100")
	if err != nil {
		return op, clientSpec{}, err
	}
	s := clientSpec{journal: filepath.Join(dir, marker+".db"), id: marker, body: body, marker: marker, creates: e.Faulty, reads: e.Clean}
	if f.reads {
		s.reads = e.Faulty
	}
	remove, err := e.Faulty.Apply(f.fault)
	if err != nil {
		return op, s, err
	}
	DeferCleanup(remove)
	defer remove()
	s.phase, s.label, s.policy = "under the fault", op.Name, e.Settings.Retry
	op.Key, op.Faulted, err = runClient(ctx, e, h, s)
	return op, s, err
}

// clientSpec is one run of the reference client.
type clientSpec struct {
	phase, label   string
	journal        string
	id             string
	body           []byte
	marker         string
	creates, reads *harness.Lane
	policy         retry.Policy
}

// runClient opens the journal, begins (or finds) the operation, runs it
// through the lanes and closes the journal, as one process would. The
// key it returns was journaled before anything was sent.
func runClient(ctx context.Context, e *harness.Env, h *history.History, s clientSpec) (string, check.ClientRun, error) {
	j, err := retry.OpenJournal(s.journal)
	if err != nil {
		return "", check.ClientRun{}, err
	}
	defer j.Close()
	creates := e.Through(s.creates, h, s.label+": create")
	reads := e.Through(s.reads, h, s.label+": look-up")
	client, err := harness.ReferenceClient(harness.ClientSetup{
		Target: e.Target, Create: creates, Reconcile: reads, Journal: j, Policy: s.policy, Marker: s.marker, RunID: e.RunID,
	})
	if err != nil {
		return "", check.ClientRun{}, err
	}
	op, err := client.Begin(ctx, s.id, s.body)
	if err != nil {
		return "", check.ClientRun{}, err
	}
	start := time.Now()
	res, err := client.Run(ctx, s.id)
	elapsed := time.Since(start)
	if err != nil {
		return "", check.ClientRun{}, fmt.Errorf("reference client %s: %w", s.phase, err)
	}
	return op.Key, check.ClientRun{
		Phase: s.phase, State: string(res.State), Reason: res.Reason,
		Budget: res.Budget, Deadline: res.Deadline.Sub(res.Started), Elapsed: elapsed,
		ResourceID: res.ResourceID, Creates: creates.Seqs(), Lookups: reads.Seqs(),
	}, nil
}

// resumePolicy is the restarted client's: the same attempt budget, but
// ordinary request timeouts, since the fault is gone and the target may
// be slow, and room to wait out a key the target still has in progress.
func resumePolicy(s harness.Settings) retry.Policy {
	p := s.Retry
	p.AttemptTimeout = s.RequestTimeout
	p.MaxLookups = max(p.MaxAttempts, 10)
	p.BaseBackoff, p.MaxBackoff = 100*time.Millisecond, time.Second
	p.Deadline = time.Duration(p.MaxAttempts+p.MaxLookups+1)*s.RequestTimeout + 10*p.MaxBackoff
	return p
}

// clientTable lays out each run of the reference client: the attempt
// count against the budget, the time against the deadline, the key.
func clientTable(ops []check.RetryOp) check.Table {
	t := check.Table{
		Title:   "the reference retrying client's runs",
		Columns: []string{"fault", "run", "key", "creates / budget", "look-ups", "elapsed / deadline", "end state", "why", "resource"},
	}
	for _, op := range ops {
		for _, c := range []check.ClientRun{op.Faulted, op.Resumed} {
			t.Rows = append(t.Rows, []string{
				op.Fault, c.Phase, op.Key,
				fmt.Sprintf("%d / %d", len(c.Creates), c.Budget), fmt.Sprint(len(c.Lookups)),
				fmt.Sprintf("%v / %v", c.Elapsed.Round(time.Millisecond), c.Deadline), c.State, c.Reason, c.ResourceID,
			})
		}
	}
	return t
}
