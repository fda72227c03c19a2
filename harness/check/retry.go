package check

import (
	"fmt"
	"slices"
	"time"

	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/harness/retry/state"
)

// The client half of the guarantee: a caller that meets persistent
// timeouts must stop, must not call the outcome a failure, must reuse its
// key, and must be able to find out what happened.

// S6: DESIGN.md: "persistent timeouts / blackhole while the reference
// retrying client works: the client makes at most its attempt budget,
// ends within its deadline in UNKNOWN_RESULT (not FAILED), and once the
// fault clears, reconciliation plus a same-key resubmission leaves
// exactly one resource". The draft (§2) has a client retry a request
// whose answer it lost with the same key; the target is judged on
// whether that, with reconciliation, leaves one resource.
var S6 = Register(Check{
	ID: "S6", Group: "retry", Level: MUST, Clause: "core; draft-ietf-httpapi-idempotency-key-header §2 (a retry carries the same key)",
	Title: "should leave exactly one resource when a bounded same-key client retries through persistent timeouts and reconciles",
})

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
	Reading Reading
}

// RetryRun is what S6 observed.
type RetryRun struct {
	Ops     []RetryOp
	History []history.Exchange
	// Reconcile is how the target lets a client reconcile: "lookup",
	// "oracle" or "none".
	Reconcile string
	// Slack is the scheduling delay allowed past a client's deadline.
	Slack time.Duration
}

// BoundedRetries judges S6. With no violation, a target that offers no
// way to reconcile gets a WARN: its clients cannot learn the fate of an
// unknown outcome and can only resubmit blindly.
func BoundedRetries(run RetryRun) Verdict {
	bySeq := map[int]history.Exchange{}
	for _, x := range run.History {
		bySeq[x.Seq] = x
	}
	var vs []Violation
	var resumed []history.Exchange
	for _, op := range run.Ops {
		for _, seq := range op.Resumed.Lookups {
			resumed = append(resumed, bySeq[seq])
		}
		for _, seq := range op.Resumed.Creates {
			resumed = append(resumed, bySeq[seq])
		}
		vs = append(vs, judgeOp(op, bySeq, run)...)
	}
	if len(resumed) > 0 {
		if err := unreached(resumed); err != nil {
			return Errored(S6.ID, err)
		}
	}
	if len(vs) == 0 && (run.Reconcile == "" || run.Reconcile == "none") {
		v := Violation{
			What:     "the target offers no way to reconcile (no lookup endpoint, no oracle a client may call): a client cannot learn the fate of a request whose answer it lost, and can only resubmit blindly",
			Expected: "a lookup endpoint (lookup.path) or reconcile: oracle",
			Observed: "reconcile: none",
		}
		return Verdict{Check: S6.ID, Status: WARN, Reason: v.String(), Violations: []Violation{v}}
	}
	return Judge(S6.ID, vs...)
}

func judgeOp(op RetryOp, bySeq map[int]history.Exchange, run RetryRun) []Violation {
	var vs []Violation
	add := func(v Violation) {
		v.What = op.Name + ": " + v.What
		vs = append(vs, v)
	}
	f, r := op.Faulted, op.Resumed
	switch state.State(f.State) {
	case state.UnknownResult:
	case state.FailedFinal:
		add(Violation{
			What:     "the client reported a final failure although its requests may have applied",
			Expected: string(state.UnknownResult), Observed: f.State + " (" + f.Reason + ")", Seqs: f.Creates,
		})
	default:
		add(Violation{
			What:     "under a persistent fault the client did not end with an unknown outcome",
			Expected: string(state.UnknownResult), Observed: f.State + " (" + f.Reason + ")", Seqs: f.Creates,
		})
	}
	for _, c := range []ClientRun{f, r} {
		if len(c.Creates) > c.Budget {
			add(Violation{
				What:     fmt.Sprintf("%s the client sent more create requests than its budget", c.Phase),
				Expected: fmt.Sprintf("at most %d", c.Budget), Observed: fmt.Sprint(len(c.Creates)), Seqs: c.Creates,
			})
		}
		if c.Elapsed > c.Deadline+run.Slack {
			add(Violation{
				What:     fmt.Sprintf("%s the client ran past its deadline", c.Phase),
				Expected: fmt.Sprintf("at most %v", c.Deadline), Observed: c.Elapsed.Round(time.Millisecond).String(),
			})
		}
	}
	for _, seq := range append(slices.Clone(f.Creates), r.Creates...) {
		if x := bySeq[seq]; x.Key != op.Key {
			add(Violation{What: x.Step + ": an attempt carried another key than the one journaled", Expected: op.Key, Observed: fmt.Sprintf("%q", x.Key), Seqs: []int{seq}})
		}
	}
	if state.State(r.State) != state.Succeeded {
		add(Violation{
			What:     "after the fault cleared, the resumed client did not succeed",
			Expected: string(state.Succeeded), Observed: r.State + " (" + r.Reason + ")", Seqs: append(slices.Clone(r.Lookups), r.Creates...),
		})
	}
	if run.Reconcile != "" && run.Reconcile != "none" && len(r.Creates) > 0 && (len(r.Lookups) == 0 || slices.Min(r.Creates) < slices.Min(r.Lookups)) {
		add(Violation{What: "the resumed client resubmitted before it reconciled", Seqs: r.Creates})
	}
	for _, v := range oneResource(op.Reading, r.ResourceID) {
		add(v)
	}
	return vs
}
