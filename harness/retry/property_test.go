package retry_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/idemspec/idemspec/harness/retry"
	"github.com/idemspec/idemspec/harness/retry/state"
)

func TestMain(m *testing.M) {
	flag.Parse()
	explicit := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { explicit[f.Name] = true })
	setDefault := func(name, env, value string) {
		if _, ok := os.LookupEnv(env); !ok && !explicit[name] {
			flag.Set(name, value)
		}
	}
	// At least 100 checks even with -short (which divides by five).
	setDefault("rapid.checks", "RAPID_CHECKS", "500")
	// A failure prints its seed; the mutation tests must leave no files.
	setDefault("rapid.nofailfile", "RAPID_NOFAILFILE", "true")
	setDefault("rapid.shrinktime", "RAPID_SHRINKTIME", "5s")
	os.Exit(m.Run())
}

// rapidScript lets rapid choose what the simulated world does, so a
// failure shrinks to the shortest sequence of outcomes that shows it.
type rapidScript struct{ t *rapid.T }

func (s rapidScript) create(n int) string {
	return rapid.SampledFrom(createOutcomes).Draw(s.t, fmt.Sprintf("create %d", n))
}

func (s rapidScript) lookup(n int) string {
	return rapid.SampledFrom(lookupOutcomes).Draw(s.t, fmt.Sprintf("lookup %d", n))
}

func (s rapidScript) latency(label string, scale time.Duration) time.Duration {
	return time.Duration(rapid.Int64Range(0, int64(2*scale/time.Millisecond)).Draw(s.t, label)) * time.Millisecond
}

func (s rapidScript) retryAfter(label string) string {
	return rapid.SampledFrom([]string{"", "", "", "0", "1", "2", "soon", "30"}).Draw(s.t, label)
}

func (s rapidScript) fatalf(format string, args ...any) { s.t.Fatalf(format, args...) }

func drawPolicy(t *rapid.T) retry.Policy {
	ms := func(lo, hi int64, label string) time.Duration {
		return time.Duration(rapid.Int64Range(lo, hi).Draw(t, label)) * time.Millisecond
	}
	p := retry.Policy{
		MaxAttempts:    rapid.IntRange(1, 6).Draw(t, "max attempts"),
		MaxLookups:     rapid.IntRange(0, 6).Draw(t, "max lookups"),
		AttemptTimeout: ms(1, 3000, "attempt timeout"),
		BaseBackoff:    ms(1, 1000, "base backoff"),
	}
	// Drawn in attempt timeouts, so that deadlines that allow several
	// attempts are as common as the tight ones rapid favours.
	p.Deadline = time.Duration(rapid.IntRange(0, 8).Draw(t, "deadline in attempt timeouts"))*p.AttemptTimeout + ms(1, 2000, "deadline extra")
	p.MaxBackoff = ms(int64(p.BaseBackoff/time.Millisecond), 5000, "max backoff")
	return p
}

// journaled are the states an earlier process may have left.
var journaled = []state.State{state.Pending, state.Pending, state.Submitting, state.UnknownResult, state.FailedRetryable, state.Succeeded, state.FailedFinal}

// clientProperties runs the client (or the named mutant) through one to
// two runs in a world rapid chooses, and checks every property. Each
// failure message starts with the property's tag, so the mutation test
// can tell which property caught a mutant.
func clientProperties(mutant string, checks *atomic.Int64) func(*rapid.T) {
	return func(t *rapid.T) {
		checks.Add(1)
		ctx := context.Background()
		clock := newSimClock()
		j := retry.NewMemoryJournal()
		v := newSimServer(rapidScript{t}, clock, j, "op")
		p := drawPolicy(t)
		reconciles := rapid.Bool().Draw(t, "reconciler")
		rnd := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "jitter seed"), 1))
		c := simClient(v, p, reconciles, rnd)
		client := &c
		if mutant != "" {
			client = retry.Broken(c, retry.Mutants[mutant])
		}

		op, err := client.Begin(ctx, "op", []byte(`{"marker":"m"}`))
		if err != nil {
			t.Fatalf("begin: %v", err)
		}
		op = earlierProcess(t, j, v, op)
		mayHaveApplied := op.State == state.Submitting || op.State == state.UnknownResult

		runs := rapid.IntRange(1, 2).Draw(t, "runs")
		for run := 1; run <= runs; run++ {
			v.run = run
			started, from := clock.Now(), len(v.wire)
			res, err := client.Run(ctx, "op")
			if err != nil {
				t.Fatalf("run %d: %v", run, err)
			}
			wire := v.wire[from:]
			checkBudget(t, p, wire, run)
			checkKey(t, op, res, wire, run)
			checkJournal(t, j, res, v.wire[:from], wire, run)
			checkDeadline(t, p, started, clock.Now(), res, run)
			for _, ev := range wire {
				mayHaveApplied = mayHaveApplied || (ev.Create && ev.MayHaveApplied)
			}
			checkNoFalseFailure(t, res, mayHaveApplied || len(v.resources) > 0, run)
			if reconciles {
				checkReconcileFirst(t, op, v.wire)
			}
			checkTruth(t, v, op, res, run)
		}
	}
}

// earlierProcess puts the operation in a state an earlier run or a
// crashed process may have left, with what the server did meanwhile.
func earlierProcess(t *rapid.T, j retry.Journal, v *simServer, op retry.Operation) retry.Operation {
	op.State = rapid.SampledFrom(journaled).Draw(t, "journaled state")
	if op.State == state.Pending {
		return op
	}
	op.Attempts = rapid.IntRange(1, 3).Draw(t, "earlier attempts")
	switch op.State {
	case state.Succeeded:
		v.apply(op.Key)
		op.ResourceID = v.resources[op.Key]
	case state.Submitting, state.UnknownResult:
		if rapid.Bool().Draw(t, "earlier attempt applied") {
			v.apply(op.Key)
		}
	}
	if err := j.Update(context.Background(), op); err != nil {
		t.Fatalf("journal: %v", err)
	}
	return op
}

func creates(wire []wireEvent) []wireEvent {
	var out []wireEvent
	for _, ev := range wire {
		if ev.Create {
			out = append(out, ev)
		}
	}
	return out
}

func checkBudget(t *rapid.T, p retry.Policy, wire []wireEvent, run int) {
	lookupBudget := p.MaxLookups
	if lookupBudget == 0 {
		lookupBudget = p.MaxAttempts
	}
	sent := len(creates(wire))
	if sent > p.MaxAttempts {
		t.Fatalf("[budget] run %d sent %d create requests with a budget of %d", run, sent, p.MaxAttempts)
	}
	if lookups := len(wire) - sent; lookups > lookupBudget {
		t.Fatalf("[budget] run %d made %d look-ups with a budget of %d", run, lookups, lookupBudget)
	}
}

func checkKey(t *rapid.T, op retry.Operation, res retry.Result, wire []wireEvent, run int) {
	for i, ev := range creates(wire) {
		if ev.Key != op.Key {
			t.Fatalf("[key] run %d, attempt %d carried key %q, the operation's key is %q", run, i+1, ev.Key, op.Key)
		}
	}
	if res.Key != op.Key {
		t.Fatalf("[key] run %d reports key %q, the operation's key is %q", run, res.Key, op.Key)
	}
}

// checkJournal: before every send the journal already says SUBMITTING,
// with the key on the wire and the attempt counted; after the run it
// holds the state the run reports.
func checkJournal(t *rapid.T, j retry.Journal, res retry.Result, before, wire []wireEvent, run int) {
	earlier := len(creates(before))
	for i, ev := range creates(wire) {
		if ev.Journal.State != state.Submitting || ev.Journal.Key != ev.Key {
			t.Fatalf("[journal] run %d, attempt %d left while the journal said %s with key %q", run, i+1, ev.Journal.State, ev.Journal.Key)
		}
		if ev.Journal.Attempts < earlier+i+1 {
			t.Fatalf("[journal] run %d, attempt %d left while the journal counted %d attempts", run, i+1, ev.Journal.Attempts)
		}
	}
	stored, err := j.Load(context.Background(), "op")
	if err != nil {
		t.Fatalf("[journal] %v", err)
	}
	if stored.State != res.State {
		t.Fatalf("[journal] run %d ended %s but the journal says %s", run, res.State, stored.State)
	}
	switch res.State {
	case state.Succeeded, state.UnknownResult, state.FailedRetryable, state.FailedFinal:
	default:
		t.Fatalf("[journal] run %d ended in %s, which is not an end state", run, res.State)
	}
}

func checkDeadline(t *rapid.T, p retry.Policy, started, ended time.Time, res retry.Result, run int) {
	if took := ended.Sub(started); took > p.Deadline {
		t.Fatalf("[deadline] run %d took %v with a deadline of %v (reason: %s)", run, took, p.Deadline, res.Reason)
	}
}

// checkNoFalseFailure: a failure is reported only when no attempt can
// have applied.
func checkNoFalseFailure(t *rapid.T, res retry.Result, mayHaveApplied bool, run int) {
	if mayHaveApplied && (res.State == state.FailedFinal || res.State == state.FailedRetryable) {
		t.Fatalf("[final] run %d reported %s although an attempt may have applied (reason: %s)", run, res.State, res.Reason)
	}
}

// checkReconcileFirst: after an attempt that may have applied, the next
// create is sent only once a look-up found nothing.
func checkReconcileFirst(t *rapid.T, op retry.Operation, wire []wireEvent) {
	unsure := op.State == state.Submitting || op.State == state.UnknownResult
	for i, ev := range wire {
		switch {
		case !ev.Create:
			unsure = unsure && !ev.NotFound
		case unsure:
			t.Fatalf("[reconcile] request %d resubmitted (run %d) without a look-up finding nothing since the unknown outcome", i+1, ev.Run)
		default:
			unsure = ev.MayHaveApplied
		}
	}
}

// checkTruth compares the report with what the server really did.
func checkTruth(t *rapid.T, v *simServer, op retry.Operation, res retry.Result, run int) {
	if len(v.resources) > 1 {
		t.Fatalf("[truth] the server holds %d resources for one operation", len(v.resources))
	}
	if res.State == state.Succeeded && (v.resources[op.Key] == "" || res.ResourceID != v.resources[op.Key]) {
		t.Fatalf("[truth] run %d reports %s with resource %q; the server holds %q", run, res.State, res.ResourceID, v.resources[op.Key])
	}
}

// TestClientProperties: for any sequence of transport outcomes the
// attempts stay within budget, the key never changes, the journal leads
// every send, a terminal state is reached before the deadline, no
// failure is reported when a send may have applied, a resubmission
// follows a look-up that found nothing, and the report is the truth.
func TestClientProperties(t *testing.T) {
	var checks atomic.Int64
	rapid.Check(t, clientProperties("", &checks))
	if n := checks.Load(); n < 100 {
		t.Fatalf("rapid ran %d checks, want at least 100", n)
	}
	t.Logf("%d checks", checks.Load())
}

// TestPropertiesCatchBrokenClients proves the properties: each mutant of
// the client (unbounded attempts, a fresh key per attempt, ...) must be
// caught, and by the property its name says.
func TestPropertiesCatchBrokenClients(t *testing.T) {
	names := make([]string, 0, len(retry.Mutants))
	for name := range retry.Mutants {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			var checks atomic.Int64
			rec := &failureRecorder{name: "mutant-" + name}
			rapid.Check(rec, clientProperties(name, &checks))
			out := rec.String()
			if !rec.Failed() {
				t.Fatalf("mutant %q survived %d checks: the properties do not catch it", name, checks.Load())
			}
			if !strings.Contains(out, "["+name+"]") {
				t.Fatalf("mutant %q was caught, but not by the %q property:\n%s", name, name, out)
			}
		})
	}
}

// failureRecorder is a rapid.TB that records a failure instead of
// failing the test, so a test can require that a property fails.
type failureRecorder struct {
	name   string
	mu     sync.Mutex
	failed bool
	out    strings.Builder
}

func (r *failureRecorder) Helper()      {}
func (r *failureRecorder) Name() string { return r.name }
func (r *failureRecorder) Logf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(&r.out, format+"\n", args...)
}
func (r *failureRecorder) Log(args ...any) { r.Logf("%s", fmt.Sprint(args...)) }
func (r *failureRecorder) Errorf(format string, args ...any) {
	r.Fail()
	r.Logf(format, args...)
}
func (r *failureRecorder) Error(args ...any)                 { r.Errorf("%s", fmt.Sprint(args...)) }
func (r *failureRecorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }
func (r *failureRecorder) Fatal(args ...any)                 { r.Error(args...) }
func (r *failureRecorder) Skipf(format string, args ...any)  { r.Errorf("skipped: "+format, args...) }
func (r *failureRecorder) Skip(args ...any)                  { r.Error(args...) }
func (r *failureRecorder) SkipNow()                          { r.Error("skipped") }
func (r *failureRecorder) FailNow()                          { r.Fail() }
func (r *failureRecorder) Fail() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = true
}
func (r *failureRecorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}
func (r *failureRecorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.out.String()
}
