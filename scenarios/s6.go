package scenarios

import (
	. "github.com/onsi/ginkgo/v2"

	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/harness/retry"
	"github.com/idemspec/idemspec/harness/retry/state"
)

// S6, the sixth core scenario: "persistent timeouts / blackhole while the reference
// retrying client works: the client makes at most its attempt budget,
// ends within its deadline in UNKNOWN_RESULT (not FAILED), and once the
// fault clears, reconciliation plus a same-key resubmission leaves
// exactly one resource". The draft (§2) has a client retry a request
// whose answer it lost with the same key; the target is judged on
// whether that, with reconciliation, leaves one resource.
var S6 = check.Define(Check{
	ID: "S6", Group: "retry", Level: check.MUST, Clause: "core; draft-ietf-httpapi-idempotency-key-header §2 (a retry carries the same key)",
	Title:    "should leave exactly one resource when a bounded same-key client retries through persistent timeouts and reconciles",
	Why:      "Through an outage a client retries until it gives up; a server that does not hold one key across those attempts leaves two resources, or none the client can find, when the client reconciles.",
	Fix:      "Deduplicate by the key across every attempt (the key record of S1 and S2) and let a client look an operation up by its key or marker, so reconciliation finds what the lost attempts did.",
	Stimulus: "Runs the reference retrying client through a blackhole, then through response loss on every request; clears the fault; the client reconciles and resubmits with its one key.",
	Proof:    "The client's attempts within budget and deadline, its end state UNKNOWN_RESULT, and the oracle's count of one resource after reconciliation.",
	Plan: func(p Planning) check.Plan {
		per := 2*p.Tuning.Retry.MaxAttempts + 3
		return check.Plan{Requests: 2 * per, MaxRequests: 2*landingTries*per + commitPolls(p.Settings),
			Faults: []string{harness.Blackhole{}.Name() + ", then " + harness.ResponseLoss{}.Name() + " on the faulty lane while the reference client retries"}}
	},
	Run: serverRunWith(boundedRetries),
})

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

func boundedRetries(ctx context.Context, in Inputs, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error) {
	dir, err := os.MkdirTemp("", "idemspec-s6-")
	if err != nil {
		return check.Verdict{}, fmt.Errorf("journal directory: %w", err)
	}
	DeferCleanup(os.RemoveAll, dir)
	rec := RetryRecord{Reconcile: e.Target.Reconcile}
	faults := []persistentFault{
		// Creates are swallowed; the client can still read, finds nothing
		// each time, and resubmits with its one key until the budget.
		{fault: harness.Blackhole{}},
		// Creates land and commit but every answer, look-ups included, is
		// lost: the client cannot learn anything until the fault clears.
		{fault: harness.ResponseLoss{}, reads: true, lands: true},
	}
	for _, f := range faults {
		op, err := retryThrough(ctx, e, h, ev, dir, f, in.Tuning.Retry)
		if err != nil {
			return check.Verdict{}, err
		}
		rec.Ops = append(rec.Ops, op)
	}
	rec.History = h.Exchanges()
	ev.Tables = append(ev.Tables, clientTable(rec.Ops))
	return BoundedRetries(rec), nil
}

// landingTries bounds how often S6 repeats an operation whose creates
// were meant to land but did not reach the target before the client gave
// up (a busy machine): without a commit, "the answer was lost after the
// target committed" would go untested.
const landingTries = 3

// retryThrough runs one operation under f with the reference client's
// policy, clears f, and resumes the operation in a new client over the
// same journal, as a restarted process would.
func retryThrough(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence, dir string, f persistentFault, policy retry.Policy) (RetryOp, error) {
	what := "the client's creates"
	if f.reads {
		what = "every request of the client"
	}
	ev.Faults = append(ev.Faults, fmt.Sprintf("%s on the faulty lane for %s until the budget or the deadline", f.fault.Name(), what))
	for try := 1; ; try++ {
		op, s, err := underFault(ctx, e, h, dir, f, policy)
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
		s.phase, s.label, s.policy = "resumed", op.Name+", resumed", resumePolicy(e.Settings, policy)
		if _, op.Resumed, err = runClient(ctx, e, h, s); err != nil {
			return op, err
		}
		if op.Reading, err = reading(ctx, e, ev, s.marker, "after the "+op.Name+" run and the resumed run"); err != nil {
			return op, err
		}
		return op, nil
	}
}

// underFault runs a new operation with policy while f is on the faulty
// lane, and returns it with the spec to resume it by.
func underFault(ctx context.Context, e *harness.Env, h *history.History, dir string, f persistentFault, policy retry.Policy) (RetryOp, clientSpec, error) {
	marker := e.NewMarker("S6")
	op := RetryOp{Name: f.fault.Name(), Fault: f.fault.Name()}
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
	s.phase, s.label, s.policy = "under the fault", op.Name, policy
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
func runClient(ctx context.Context, e *harness.Env, h *history.History, s clientSpec) (string, ClientRun, error) {
	j, err := retry.OpenJournal(s.journal)
	if err != nil {
		return "", ClientRun{}, err
	}
	defer j.Close()
	creates := e.Through(s.creates, h, s.label+": create")
	reads := e.Through(s.reads, h, s.label+": look-up")
	client, err := harness.ReferenceClient(harness.ClientSetup{
		Target: e.Target, Create: creates, Reconcile: reads, Journal: j, Policy: s.policy, Marker: s.marker, RunID: e.RunID,
	})
	if err != nil {
		return "", ClientRun{}, err
	}
	op, err := client.Begin(ctx, s.id, s.body)
	if err != nil {
		return "", ClientRun{}, err
	}
	start := time.Now()
	res, err := client.Run(ctx, s.id)
	elapsed := time.Since(start)
	if err != nil {
		return "", ClientRun{}, fmt.Errorf("reference client %s: %w", s.phase, err)
	}
	return op.Key, ClientRun{
		Phase: s.phase, State: string(res.State), Reason: res.Reason,
		Budget: res.Budget, Deadline: res.Deadline.Sub(res.Started), Elapsed: elapsed,
		ResourceID: res.ResourceID, Creates: creates.Seqs(), Lookups: reads.Seqs(),
	}, nil
}

// resumePolicy is the restarted client's, from the policy it ran under
// the fault: the same attempt budget, but ordinary request timeouts,
// since the fault is gone and the target may be slow, and room to wait
// out a key the target still has in progress.
func resumePolicy(s harness.Settings, faulted retry.Policy) retry.Policy {
	p := faulted
	p.AttemptTimeout = s.RequestTimeout
	p.MaxLookups = max(p.MaxAttempts, 10)
	p.BaseBackoff, p.MaxBackoff = 100*time.Millisecond, time.Second
	p.Deadline = time.Duration(p.MaxAttempts+p.MaxLookups+1)*s.RequestTimeout + 10*p.MaxBackoff
	return p
}

// clientTable lays out each run of the reference client: the attempt
// count against the budget, the time against the deadline, the key.
func clientTable(ops []RetryOp) check.Table {
	t := check.Table{
		Title:   "the reference retrying client's runs",
		Columns: []string{"fault", "run", "key", "creates / budget", "look-ups", "elapsed / deadline", "end state", "why", "resource"},
	}
	for _, op := range ops {
		for _, c := range []ClientRun{op.Faulted, op.Resumed} {
			t.Rows = append(t.Rows, []string{
				op.Fault, c.Phase, op.Key,
				fmt.Sprintf("%d / %d", len(c.Creates), c.Budget), fmt.Sprint(len(c.Lookups)),
				fmt.Sprintf("%v / %v", c.Elapsed.Round(time.Millisecond), c.Deadline), c.State, c.Reason, c.ResourceID,
			})
		}
	}
	return t
}

// ClientRun is one run of the reference retrying client as S6 saw it.
type ClientRun struct {
	Phase      string // "under the fault", "resumed"
	State      string
	Reason     string
	Budget     int
	Deadline   time.Duration
	Elapsed    time.Duration
	ResourceID string
	// Creates and Lookups number the run's create requests and its
	// reconciliation requests in the history.
	Creates []int
	Lookups []int
}

// RetryOp is one operation S6 drove: a run under a persistent fault,
// then, once the fault was cleared and the client restarted from its
// journal, a resumed run.
type RetryOp struct {
	Name    string
	Fault   string
	Key     string // journaled before the first send
	Faulted ClientRun
	Resumed ClientRun
	Reading check.Reading
}

// RetryRecord is what S6 observed.
type RetryRecord struct {
	Ops     []RetryOp
	History []history.Exchange
	// Reconcile is how the target lets a client reconcile: "lookup",
	// "oracle" or "none".
	Reconcile string
}

// BoundedRetries judges S6. With no violation, a target that offers no
// way to reconcile gets a WARN: its clients cannot learn the fate of an
// unknown outcome and can only resubmit blindly.
func BoundedRetries(rec RetryRecord) check.Verdict {
	bySeq := map[int]history.Exchange{}
	for _, x := range rec.History {
		bySeq[x.Seq] = x
	}
	if err := ownClientBounds(rec); err != nil {
		return check.Errored("S6", err)
	}
	var vs []check.Violation
	var resumed []history.Exchange
	for _, op := range rec.Ops {
		for _, seq := range op.Resumed.Lookups {
			resumed = append(resumed, bySeq[seq])
		}
		for _, seq := range op.Resumed.Creates {
			resumed = append(resumed, bySeq[seq])
		}
		vs = append(vs, judgeOp(op, bySeq, rec)...)
	}
	if len(resumed) > 0 {
		if err := unreached(resumed); err != nil {
			return check.Errored("S6", err)
		}
	}
	if len(vs) == 0 && (rec.Reconcile == "" || rec.Reconcile == "none") {
		v := check.Violation{
			What:     "the target offers no way to reconcile (no lookup endpoint, no oracle a client may call): a client cannot learn the fate of a request whose answer it lost, and can only resubmit blindly",
			Expected: "a lookup endpoint (lookup.path) or reconcile: oracle",
			Observed: "reconcile: none",
		}
		return check.Verdict{Check: "S6", Status: check.WARN, Reason: v.String(), Violations: []check.Violation{v}}
	}
	return check.Judge("S6", vs...)
}

// ownClientBounds is an error when idemspec's own client broke its
// budget: the client is idemspec's, so that is idemspec's bug, says
// nothing of the target, and S6 cannot be judged. A run past the
// client's deadline is neither: on a busy machine the client's last
// attempt ends late, the effects it left are judged all the same, and
// the evidence's table shows its time against the deadline.
func ownClientBounds(rec RetryRecord) error {
	for _, op := range rec.Ops {
		for _, c := range []ClientRun{op.Faulted, op.Resumed} {
			if len(c.Creates) > c.Budget {
				return fmt.Errorf("%s: %s idemspec's own client sent %d create requests, more than its budget of %d", op.Name, c.Phase, len(c.Creates), c.Budget)
			}
		}
	}
	return nil
}

func judgeOp(op RetryOp, bySeq map[int]history.Exchange, rec RetryRecord) []check.Violation {
	var vs []check.Violation
	add := func(v check.Violation) {
		v.What = op.Name + ": " + v.What
		vs = append(vs, v)
	}
	f, r := op.Faulted, op.Resumed
	switch state.State(f.State) {
	case state.UnknownResult:
	case state.FailedFinal:
		add(check.Violation{
			What:     "the client reported a final failure although its requests may have applied",
			Expected: string(state.UnknownResult), Observed: f.State + " (" + f.Reason + ")", Seqs: f.Creates,
		})
	default:
		add(check.Violation{
			What:     "under a persistent fault the client did not end with an unknown outcome",
			Expected: string(state.UnknownResult), Observed: f.State + " (" + f.Reason + ")", Seqs: f.Creates,
		})
	}
	for _, seq := range append(slices.Clone(f.Creates), r.Creates...) {
		if x := bySeq[seq]; x.Key != op.Key {
			add(check.Violation{What: x.Step + ": an attempt carried another key than the one journaled", Expected: op.Key, Observed: fmt.Sprintf("%q", x.Key), Seqs: []int{seq}})
		}
	}
	if state.State(r.State) != state.Succeeded {
		add(check.Violation{
			What:     "after the fault cleared, the resumed client did not succeed",
			Expected: string(state.Succeeded), Observed: r.State + " (" + r.Reason + ")", Seqs: append(slices.Clone(r.Lookups), r.Creates...),
		})
	}
	if rec.Reconcile != "" && rec.Reconcile != "none" && len(r.Creates) > 0 && (len(r.Lookups) == 0 || slices.Min(r.Creates) < slices.Min(r.Lookups)) {
		add(check.Violation{What: "the resumed client resubmitted before it reconciled", Seqs: r.Creates})
	}
	for _, v := range countsOne(op.Reading, r.ResourceID) {
		add(v)
	}
	return vs
}
