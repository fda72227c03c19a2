package scenarios

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/upstream"
	"github.com/idemspec/idemspec/harness/wire"
	"github.com/idemspec/idemspec/targets"
)

// ClientWire is client mode against the API a target file describes:
// the program under test runs unmodified, handed idemspec's interposer
// in place of the API's base URL, and carries no marker. What it does is
// read from the wire: a baseline run with no fault says what one run
// creates, per operation, and each check's faulted run is judged against
// it. The interposer stands in front of the faulty lane, so the API is
// reached through Toxiproxy still.
type ClientWire struct {
	Interposer *wire.Interposer
	// BaseURLEnv name the variables that carry the interposer's URL to
	// the program; StateDirEnv those that carry its working directory.
	BaseURLEnv, StateDirEnv []string
	// ExitCodes map the program's exit codes to the end states it means
	// (--exit-codes), for a program that prints no result.
	ExitCodes map[int]string

	mu sync.Mutex
	// op is the operation the trial under way aims at; failStatus is what
	// idemspec answers its creates with itself (FailNext), failCount for
	// how many.
	op         string
	failStatus int
	failCount  int
}

// WireCounted is what an unmodified program's counts rest on
// (targets.Target.CountedBy): the wire always, the oracle only where the
// program's creates carry a marker.
const WireCounted = "resources counted from the wire (the distinct ids in the API's answers to the program's creates), and by the oracle only where the program's creates carry a marker where the file's create.body puts {{.Marker}}: each check's notes say which"

// wireTrial is what a trial in wire mode knows besides the one-create
// trial's: the baseline and the operation it aims at.
type wireTrial struct {
	// op is the operation the faults aim at: the spec's.
	op string
	// expected is how many resources one run created, per operation.
	expected map[string]int
	baseline []wire.Exchange
	// before are the oracle's readings, after the baseline, of the
	// markers the baseline's creates carried.
	before map[string]targets.Observation
	hold   *wire.Armed
	// stepOps map a job's steps to their operations (the workflow
	// checks).
	stepOps map[string]string
}

// settleLimit bounds the wait for the exchanges of a run to end: a hold
// and a forward are each bounded by the interposer.
const settleLimit = wire.DefaultHoldLimit + wire.DefaultForwardLimit

// Requests is the wire as the reference server's log would show it (the
// ClientServer a trial reads its offset from).
func (w *ClientWire) Requests() []upstream.Arrival {
	var out []upstream.Arrival
	for _, x := range w.Interposer.Record().Exchanges() {
		out = append(out, upstream.Arrival{At: x.Start, Key: x.Key, Hash: x.PayloadHash, Status: x.Status, Method: x.Method, Path: x.Path})
	}
	return out
}

// FailNext has idemspec answer the aimed operation's next n creates
// with status itself, without forwarding them; n of 0 disarms every
// fault.
func (w *ClientWire) FailNext(n, status int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.failStatus, w.failCount = status, n
	if n == 0 {
		w.Interposer.DisarmAll()
		return
	}
	count := n
	if n >= 1<<20 {
		count = wire.Every
	}
	w.Interposer.Arm(wire.Aim{Operation: w.op, Count: count, Fault: wire.Fault{Respond: status}})
}

// environ is the program's environment in dir: the interposer's URL and
// the directory in the variables the flags name.
func (w *ClientWire) environ(dir string) []string {
	var env []string
	for _, name := range w.BaseURLEnv {
		env = append(env, name+"="+w.Interposer.URL())
	}
	for _, name := range w.StateDirEnv {
		env = append(env, name+"="+dir)
	}
	return env
}

// describe names an operation for people.
func describeOp(op string) string {
	if op == "" {
		return "the create"
	}
	return "operation " + op
}

// errNotCalled says the program's baseline never created by the
// operation a spec is for, though it created by another: nothing to aim
// at there (a SKIP).
type errNotCalled struct{ op string }

func (e errNotCalled) Error() string {
	return fmt.Sprintf("the program's baseline run created nothing by %s, so there is nothing to aim a fault at there", describeOp(e.op))
}

// baseline runs the program once with no fault, in a fresh directory
// of its own, and learns from the wire what one run creates. A run that
// sends nothing, or no create the file describes, or creates nothing,
// leaves nothing to judge: an error, not a failure. The faults aim at
// op, the operation the spec is for.
func (t *trial) baseline(ctx context.Context, op string) error {
	w := t.ce.Wire
	rec := w.Interposer.Record()
	from := rec.Mark()
	dir := t.in.StateDir + "-baseline"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("the baseline's working directory: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("the baseline was not started: %w", context.Cause(ctx))
	}
	p, err := t.ce.Clients.StartIn(dir, t.ce.Command, w.environ(dir))
	if err != nil {
		return err
	}
	x := p.Wait(ctx, t.ce.Deadline+t.ce.Slack)
	stdout, stderr := p.Output(outputExcerpt)
	t.ev.Notes = append(t.ev.Notes, fmt.Sprintf("baseline (no fault, in %s): exit %d after %v", dir, x.Code, x.Elapsed.Round(time.Millisecond)),
		"baseline stdout:\n"+stdout, "baseline stderr:\n"+stderr)
	settle, cancel := context.WithTimeout(ctx, settleLimit)
	defer cancel()
	if err := rec.Settle(settle, from); err != nil {
		return fmt.Errorf("the baseline's requests did not end: %w", err)
	}
	xs := rec.Since(from)
	t.wt = &wireTrial{baseline: xs, expected: map[string]int{}}
	t.offset = rec.Mark()
	if len(xs) == 0 {
		return fmt.Errorf("no request reached idemspec during the baseline run: the program was handed %s in %s; does it read its base URL from one of them? (exit %d)",
			w.Interposer.URL(), strings.Join(w.BaseURLEnv, ", "), x.Code)
	}
	if !slices.ContainsFunc(xs, func(x wire.Exchange) bool { return x.Kind == wire.Create }) {
		return fmt.Errorf("the program called no create %s describes; it sent %s (the file's creates: %s)",
			t.ce.Env.Target.Source, seen(xs), creates(t.ce.Env.Target))
	}
	for _, op := range t.ce.Env.Target.Each() {
		if n := len(wire.CreatedIDs(xs, op.Operation)); n > 0 {
			t.wt.expected[op.Operation] = n
			t.ev.Notes = append(t.ev.Notes, fmt.Sprintf("baseline: one run creates %d resource(s) by %s: %s", n, describeOp(op.Operation), someIDs(wire.CreatedIDs(xs, op.Operation))))
		}
	}
	if len(t.wt.expected) == 0 {
		return fmt.Errorf("nothing to judge: the baseline run's creates created nothing (answered %s)", statuses(xs))
	}
	t.wt.op = op
	if t.wt.expected[op] == 0 {
		return errNotCalled{op}
	}
	w.mu.Lock()
	w.op = t.wt.op
	w.mu.Unlock()
	t.ev.Notes = append(t.ev.Notes, "the faults aim at "+describeOp(t.wt.op))
	if t.job != nil {
		t.wireJob()
	}
	t.wt.before = map[string]targets.Observation{}
	for _, m := range t.markers(xs) {
		obs, err := t.observe(ctx, m)
		if err != nil {
			return fmt.Errorf("oracle, after the baseline, marker %s: %w", m, err)
		}
		t.wt.before[m] = obs
	}
	return nil
}

// seen lists the distinct requests of xs, the first ten.
func seen(xs []wire.Exchange) string {
	var out []string
	for _, x := range xs {
		r := x.Method + " " + x.Path
		if !slices.Contains(out, r) && len(out) < 10 {
			out = append(out, r)
		}
	}
	return strings.Join(out, ", ")
}

// creates lists a target's creates, as the file describes them.
func creates(t *targets.Target) string {
	var out []string
	for _, op := range t.Each() {
		out = append(out, op.Create.Method+" "+op.Create.Path)
	}
	return strings.Join(out, ", ")
}

func statuses(xs []wire.Exchange) string {
	var out []string
	for _, x := range xs {
		if x.Kind == wire.Create {
			out = append(out, fmt.Sprint(x.Status))
		}
	}
	return strings.Join(out, ", ")
}

// holdFirst aims at the first create of the trial's operation: it is
// held when it arrives, and the returned remove lets it run (the API
// runs it, or idemspec answers it as FailNext asked) and drops its
// answer, returning once that has happened.
func (w *ClientWire) holdFirst(t *trial, why string) (func(), error) {
	w.mu.Lock()
	f := wire.Fault{Hold: true, Drop: true}
	if w.failCount > 0 {
		f.Respond = w.failStatus
	}
	op := w.op
	w.mu.Unlock()
	armed := w.Interposer.Arm(wire.Aim{Operation: op, Fault: f})
	t.wt.hold = armed
	var once sync.Once
	remove := func() {
		once.Do(func() {
			armed.Release(true)
			select {
			case <-armed.Reached():
			default:
				return // nothing held
			}
			ctx, cancel := context.WithTimeout(context.Background(), settleLimit)
			defer cancel()
			seq := armed.First()
			if _, err := w.Interposer.Record().Await(ctx, seq-1, func(x wire.Exchange) bool { return x.Seq == seq && x.Done }); err != nil {
				t.ev.Notes = append(t.ev.Notes, "the held create did not end: "+err.Error())
			}
		})
	}
	DeferCleanup(remove)
	t.ev.Faults = append(t.ev.Faults, fmt.Sprintf("%s %s, by idemspec's interposer %s", firstOf(op), f.Name(), why))
	return remove, nil
}

// awaitHeld waits until the aimed create is held, or the program exits,
// or the limit; it returns the create's record index.
func (w *ClientWire) awaitHeld(ctx context.Context, t *trial, p *harness.ClientProcess) (int, error) {
	limit := time.NewTimer(t.ce.Deadline + t.ce.Slack)
	defer limit.Stop()
	if t.wt.hold == nil {
		return 0, fmt.Errorf("no create is aimed at")
	}
	select {
	case <-t.wt.hold.Reached():
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-p.Exited():
		return 0, fmt.Errorf("the program exited before its first create of %s reached idemspec", describeOp(t.wt.op))
	case <-limit.C:
		return 0, fmt.Errorf("no create of %s reached idemspec within %v", describeOp(t.wt.op), t.ce.Deadline+t.ce.Slack)
	}
	return t.wt.hold.First() - 1, nil
}

// judgeWire reads the trial's exchanges of its operation from the wire:
// its creates and look-ups as requests, the distinct ids the API's 2xx
// answers carried (dropped ones included) as its resources.
func (t *trial) judgeWire(ctx context.Context) (ClientTrial, error) {
	rec := t.ce.Wire.Interposer.Record()
	settle, cancel := context.WithTimeout(ctx, settleLimit)
	defer cancel()
	if err := rec.Settle(settle, t.offset); err != nil {
		return t.rec, fmt.Errorf("the trial's requests did not end: %w", err)
	}
	xs := rec.Since(t.offset)
	if err := t.judgeUndescribed(xs); err != nil {
		return t.rec, err
	}
	for _, x := range xs {
		// A look-up reads a key, whichever operation's it is; the
		// operations of one file often share one look-up path.
		if x.Kind == "" || x.Kind == wire.Create && x.Operation != t.wt.op {
			continue
		}
		t.rec.Requests = append(t.rec.Requests, check.ServerRequest{Seq: x.Seq, Kind: string(x.Kind), Key: x.Key, Hash: x.PayloadHash, Status: x.Status, At: x.Start, Lost: !x.Delivered})
	}
	t.rec.Resources = len(wire.CreatedIDs(xs, t.wt.op))
	t.rec.Expected = t.wt.expected[t.wt.op]
	t.rec.Unmodified = true
	t.ev.Notes = append(t.ev.Notes, fmt.Sprintf("resources counted from the wire: %d created by %s in this trial (%s); one run creates %d",
		t.rec.Resources, describeOp(t.wt.op), someIDs(wire.CreatedIDs(xs, t.wt.op)), t.rec.Expected))
	if n := elided(xs); n > 0 {
		t.ev.Notes = append(t.ev.Notes, fmt.Sprintf("%d of the trial's %d exchanges are recorded without their header and bodies (idemspec keeps those of the first %d and the last %d of a run): every exchange is counted and judged by its key, payload hash, status and id",
			n, len(xs), wire.KeepFirst, wire.KeepLast))
	}
	// The oracle is the judge's own view: a duplicate either sees counts.
	n, ok, err := t.oracleCount(ctx, xs)
	switch {
	case err != nil:
		return t.rec, err
	case ok:
		t.ev.Notes = append(t.ev.Notes, fmt.Sprintf("resources counted by the oracle: %d new since the baseline under the markers the program's creates carried", n))
		t.rec.Resources = max(t.rec.Resources, n)
	default:
		t.ev.Notes = append(t.ev.Notes, "the oracle was not read: the program's creates carry nothing where the file's create.body puts {{.Marker}}")
	}
	return t.rec, nil
}

// wireTables are a wire-mode trial's evidence: the baseline's exchanges
// and the trial's.
func (t *trial) wireTables() []check.Table {
	run := t.ce.Wire.Interposer.Record().Since(t.offset)
	return []check.Table{exchangeTable("the baseline run's exchanges (no fault)", t.wt.baseline), exchangeTable("the trial's exchanges", run)}
}

// maxTableRows bounds an exchange table: a program that floods the API
// would make a row of each request (10,000 requests made a 5.3 MB
// report.json for one check). The first and the last half are listed,
// and a row between says how many are not; the verdict counts them all.
const maxTableRows = 100

// maxNotedIDs bounds the ids a note lists.
const maxNotedIDs = 20

// someIDs lists ids, the first maxNotedIDs of them and how many more.
func someIDs(ids []string) string {
	if len(ids) <= maxNotedIDs {
		return strings.Join(ids, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ids[:maxNotedIDs], ", "), len(ids)-maxNotedIDs)
}

// elided counts the exchanges of xs recorded without their bodies.
func elided(xs []wire.Exchange) int {
	n := 0
	for _, x := range xs {
		if x.Elided {
			n++
		}
	}
	return n
}

func exchangeTable(title string, xs []wire.Exchange) check.Table {
	tb := check.Table{Title: title, Columns: []string{"#", "operation", "request", "key", "payload sha256", "fault", "status", "answer", "resource id"}}
	if len(xs) > maxTableRows {
		first, last := xs[:maxTableRows/2], xs[len(xs)-maxTableRows/2:]
		tb = exchangeTable(title, first)
		gap := fmt.Sprintf("%d exchanges not listed (#%d to #%d): counted in the verdict", len(xs)-maxTableRows, first[len(first)-1].Seq+1, last[0].Seq-1)
		tb.Rows = append(tb.Rows, []string{"…", gap, "", "", "", "", "", "", ""})
		tb.Rows = append(tb.Rows, exchangeTable(title, last).Rows...)
		return tb
	}
	for _, x := range xs {
		op := string(x.Kind)
		if x.Operation != "" {
			op += " " + x.Operation
		}
		hash := x.PayloadHash
		if len(hash) > 12 {
			hash = hash[:12]
		}
		status := "none"
		if x.Status != 0 {
			status = fmt.Sprintf("%d (%s)", x.Status, x.AnsweredBy)
		}
		answer := "delivered"
		if !x.Delivered {
			answer = "dropped by idemspec"
		}
		tb.Rows = append(tb.Rows, []string{fmt.Sprint(x.Seq), orNone(op), x.Method + " " + x.Path, x.Key, hash, orNone(x.Fault), status, answer, x.ResourceID})
	}
	return tb
}

// firstOf names the first create of an operation, for people.
func firstOf(op string) string {
	if op == "" {
		return "the first create"
	}
	return "the first create of operation " + op
}

// killedInJob is C6 for an unmodified program: the kill aims at the
// first create of the spec's operation, which is judged by its own count
// against the baseline's; the job's other calls, before the kill or
// after the restart, must not be made twice either.
func killedInJob(ctx context.Context, t *trial) (check.Verdict, error) {
	rec, err := killAndRestart(ctx, t)
	if err != nil {
		return check.Verdict{}, err
	}
	v := OneResourceAfterRestart(rec)
	op := t.wt.op
	vs := v.Violations
	run := t.ce.Wire.Interposer.Record().Since(t.offset)
	for _, other := range t.wt.created() {
		if n := len(wire.CreatedIDs(run, other)); other != op && n > t.wt.expected[other] {
			vs = append(vs, check.Violation{What: fmt.Sprintf("%s: resources after a kill aimed at %s and a restart", describeOp(other), describeOp(op)),
				Expected: fmt.Sprint(t.wt.expected[other]), Observed: fmt.Sprint(n)})
		}
	}
	if len(vs) == len(v.Violations) {
		return v, nil
	}
	return check.Judge("C6", vs...), nil
}

// created are the operations the baseline created, in the order of
// their first create.
func (wt *wireTrial) created() []string {
	var ops []string
	for _, x := range wt.baseline {
		if x.Kind == wire.Create && wt.expected[x.Operation] > 0 && !slices.Contains(ops, x.Operation) {
			ops = append(ops, x.Operation)
		}
	}
	return ops
}
