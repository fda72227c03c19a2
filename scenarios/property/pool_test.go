package property

import (
	"context"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
)

// An action on the whole target runs with no other sequence in a step:
// it waits for the steps under way to end, and no step starts until it
// is done.
func TestPoolGateLetsARestartRunAlone(t *testing.T) {
	p := gatedPool()
	var inStep atomic.Int32
	var wg sync.WaitGroup
	errs := make(chan string, 100)
	for range 3 {
		wg.Go(func() {
			for range 200 {
				turn, err := p.enter(context.Background(), false)
				if err != nil {
					errs <- err.Error()
					return
				}
				inStep.Add(1)
				time.Sleep(time.Microsecond) // a step that takes a while
				inStep.Add(-1)
				turn.leave()
			}
		})
	}
	wg.Go(func() {
		for range 50 {
			turn, err := p.enter(context.Background(), true)
			if err != nil {
				errs <- err.Error()
				return
			}
			if n := inStep.Load(); n != 0 {
				errs <- "a restart began with another sequence's step under way"
			}
			time.Sleep(time.Microsecond) // the restart
			if n := inStep.Load(); n != 0 {
				errs <- "a step began during a restart"
			}
			turn.leave()
		}
	})
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}

// Once the restart or crash itself is over, the rest of its step (the
// request after a restart, the oracle's reads) keeps one place and lets
// the other sequences' steps in beside it; the next action on the whole
// target waits until that step ends too.
func TestPoolTurnSharesTheRestOfTheStep(t *testing.T) {
	p := gatedPool()
	whole, err := p.enter(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	if p.gate.TryAcquire(1) {
		t.Fatal("a step began during a restart")
	}
	whole.share()
	if !p.gate.TryAcquire(3) {
		t.Fatal("after the restart, the other three sequences' steps cannot begin beside the rest of its step")
	}
	p.gate.Release(3)
	if p.gate.TryAcquire(4) {
		t.Fatal("an action on the whole target began beside the rest of a restart's step")
	}
	whole.leave()
	if !p.gate.TryAcquire(4) {
		t.Fatal("the restart's step ended without giving its place back")
	}
	if p.wholes != 1 {
		t.Errorf("%d restarts counted, want 1", p.wholes)
	}
}

// The first sequence to fail stops the others: the pool starts no more
// sequences, the others stop at their next step, and the
// counterexample is one worker's, shrunk alone. nodedup executes every
// request, so most sequences fail in a few steps, on every worker.
func TestPoolStopsAtTheFirstFailure(t *testing.T) {
	env := envOf(t, "nodedup")
	cfg := Config{Sequences: 200, Steps: 10, Seed: 5, ShrinkTime: 2 * time.Second, Crashes: -1, Workers: 4, Log: io.Discard}.WithDefaults()
	cfg.SearchTime = time.Hour
	p, workers, err := runWorkers(context.Background(), env, cfg, check.MUST)
	if err != nil {
		t.Fatal(err)
	}
	won := p.winner()
	if won == nil || won.best == nil || won.failingSeed == 0 {
		t.Fatal("no counterexample with a seed against nodedup")
	}
	begun := 0
	for i, r := range workers {
		begun += r.begun
		if r == won || r.best == nil {
			continue
		}
		// A sequence that failed as the winner's did is not shrunk: rapid
		// runs it again to see it fail again, and once more to print the
		// failure, and each run passes at once, halted (shrinking would
		// run it many times).
		if n := r.sequences - r.firstCalls; n > 2 {
			t.Errorf("worker %d ran %d sequences after its own failure: it shrank beside the winner", i, n)
		}
	}
	if begun >= cfg.Sequences/5 {
		t.Errorf("the pool began %d sequences of %d: want it stopped at the first failure", begun, cfg.Sequences)
	}
}

// A failing sequence's seed replays it as a search's only sequence,
// which runs alone (no pool) whatever Workers says: the replay line.
func TestPoolCounterexampleReplaysAlone(t *testing.T) {
	env := envOf(t, "nodedup")
	cfg := Config{Sequences: 20, Steps: 10, Seed: 9, ShrinkTime: 2 * time.Second, Crashes: -1, Workers: 4}
	res, err := Search(context.Background(), env, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Must.Verdict.Status != check.FAIL || res.Must.FailingSeed == 0 {
		t.Fatalf("P1 %s, seed %d: want a FAIL with a seed", res.Must.Verdict.Status, res.Must.FailingSeed)
	}
	replay := cfg
	replay.Seed, replay.Sequences = res.Must.FailingSeed, 1
	if testing.Short() {
		replay.Sequences = 5 // rapid draws a fifth: the failing one
	}
	again, err := Search(context.Background(), env, replay)
	if err != nil {
		t.Fatal(err)
	}
	if again.Must.Verdict.Status != check.FAIL || again.Must.FailingSeed != res.Must.FailingSeed {
		t.Fatalf("replay: P1 %s, seed %d: want the FAIL of seed %d", again.Must.Verdict.Status, again.Must.FailingSeed, res.Must.FailingSeed)
	}
	if a, b := again.Must.Verdict.Violations[0].What, res.Must.Verdict.Violations[0].What; a != b {
		t.Errorf("replay broke %q, the search %q", a, b)
	}
	for _, n := range again.Must.Evidence.Notes {
		if strings.Contains(n, "at once") {
			t.Errorf("the replay ran on a pool: %s", n)
		}
	}
}

// Past its time the search starts no more sequences, and its notes say
// so: a slow API cannot make a run of many minutes unannounced. A
// search whose time ran out before any sequence began exercised no
// rule: P1 and P2 are ERROR, naming the flag to raise, never PASS.
func TestSearchStopsAtItsTime(t *testing.T) {
	env := envOf(t, "reference")
	for _, workers := range []int{1, 4} {
		cfg := Config{Sequences: 10, Steps: 5, Seed: 3, Crashes: -1, Workers: workers, SearchTime: time.Nanosecond}
		res, err := Search(context.Background(), env, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []Result{res.Must, res.Should} {
			v := r.Verdict
			if v.Status != check.ERROR || !strings.Contains(v.Reason, "ran 0 sequences") || !strings.Contains(v.Reason, "raise --search-time") {
				t.Errorf("workers %d: %s %s (%s), want ERROR: no sequence ran, raise --search-time", workers, v.Check, v.Status, v.Reason)
			}
			notes := strings.Join(r.Evidence.Notes, "\n")
			if !strings.Contains(notes, "the search stopped at its time") || !strings.Contains(notes, "sequences not started") {
				t.Errorf("workers %d: %s's notes do not say the search stopped at its time:\n%s", workers, v.Check, notes)
			}
		}
	}
}

// The default time follows the API's latency, shared among the workers,
// and never falls under MinSearchTime.
func TestSearchTimeFollowsTheLatency(t *testing.T) {
	cfg := Config{Sequences: 25, Steps: 25, Workers: 4}
	if got := SearchTimeFor(cfg, 0); got != MinSearchTime {
		t.Errorf("no latency measured: %s, want %s", got, MinSearchTime)
	}
	if got, want := SearchTimeFor(cfg, time.Second), 3*25*25*2*time.Second/4; got != want {
		t.Errorf("1 s a create, 4 workers: %s, want %s", got, want)
	}
	cfg.Workers = 1
	if got, want := SearchTimeFor(cfg, time.Second), 3*25*25*2*time.Second; got != want {
		t.Errorf("1 s a create, one worker: %s, want %s", got, want)
	}
}

// The pool is sized to the API: more sequences at once against one
// whose creates are slow, where they mostly wait for answers.
func TestWorkersFollowTheLatency(t *testing.T) {
	for latency, want := range map[time.Duration]int{
		0: QuickWorkers, time.Millisecond: QuickWorkers, SlowCreate - 1: QuickWorkers,
		SlowCreate: SlowWorkers, 200 * time.Millisecond: SlowWorkers,
	} {
		if got := WorkersFor(latency); got != want {
			t.Errorf("a create of %s: %d workers, want %d", latency, got, want)
		}
	}
	if SlowWorkers <= QuickWorkers {
		t.Errorf("a slow API gets %d workers, a quick one %d", SlowWorkers, QuickWorkers)
	}
}

// Only the restarts and crashes the target takes wait for the other
// sequences to be between their steps: one a sequence leaves out (its
// second restart, a crash with no room to land, or one while another
// sequence's lost answer may be at work) touches nothing, and waiting
// for the whole pool to stop for it made a managed target's search on
// four workers about as slow as on one. A crash is held for another's
// lost answer in a step's turn when the answer was lost before, and with
// the gate whole when it is lost while the crash waits there.
func TestPoolStopsOnlyForTheRestartsAndCrashesTaken(t *testing.T) {
	env := envOf(t, "reference")
	cfg := Config{Sequences: 12, Steps: 25, Seed: 11, Crashes: -1, Workers: 4, Log: io.Discard}.WithDefaults()
	cfg.SearchTime = time.Hour
	r, err := runPool(context.Background(), env, cfg, check.MUST)
	if err != nil {
		t.Fatal(err)
	}
	if r.best != nil {
		t.Fatalf("the reference failed: %s", r.summary())
	}
	taken := r.drawn["restart"] + r.drawn["crash"]
	if r.held-r.heldForOthers == 0 {
		t.Fatalf("no restart or crash left out in %d sequences: the search proves nothing here", r.sequences)
	}
	if most := taken + r.heldForOthers; r.wholes < taken || r.wholes > most {
		t.Errorf("%d restarts and crashes took the target alone, want %d to %d (%d taken, %d held for another's lost answer; %d held in all)",
			r.wholes, taken, most, taken, r.heldForOthers, r.held)
	}
}

// A sequence's markers are made in a step's turn: on a target whose
// create acts on a parent, each marker's setup sends a create of its
// own, which another sequence's crash cut when it went outside the gate
// (the setup's retry then met its key still in flight, and the search
// stopped with an error).
func TestPoolMakesMarkersBetweenRestarts(t *testing.T) {
	env := envOf(t, "reference?action=events")
	for _, seed := range []uint64{1, 2} {
		cfg := Config{Sequences: 25, Steps: 25, Seed: seed, Workers: 4, SearchTime: time.Hour}
		res, err := Search(context.Background(), env, cfg)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if res.Must.Verdict.Status != check.PASS {
			t.Fatalf("seed %d: P1 %s against the reference: %v", seed, res.Must.Verdict.Status, res.Must.Evidence.Notes)
		}
	}
}

// A settle's wait between two attempts (a key in flight, or blocked by
// a crash until the in-progress timeout) is spent off the gate: a
// restart another sequence asked for lands meanwhile, and the settle
// gets its place back only once the restart is done.
func TestPoolSettlesPauseOffTheGate(t *testing.T) {
	p := gatedPool()
	// The pause lasts until the restart below has the whole target.
	released := make(chan struct{})
	p.sleep = func(context.Context, time.Duration) bool { <-released; return true }
	step, err := p.enter(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	resumed := make(chan bool, 1)
	go func() {
		// A pause that holds the place would leave the restart below
		// waiting for the step: p.wait, then an error.
		resumed <- step.pause(context.Background(), time.Second)
	}()
	whole, err := p.enter(context.Background(), true)
	if err != nil {
		t.Fatalf("a restart waited for a step that was only pausing between two attempts: %v", err)
	}
	close(released)
	select {
	case <-resumed:
		t.Fatal("the pausing step took its place back during the restart")
	default:
	}
	whole.leave()
	if !<-resumed {
		t.Fatal("the pause did not get its place back after the restart")
	}
	if p.gate.TryAcquire(4) {
		t.Fatal("the pausing step went on without its place")
	}
	step.leave()
	if !p.gate.TryAcquire(4) {
		t.Fatal("a place was not given back")
	}
}

// A restart gathers the gate while its request is under way: it takes a
// place at once, beside a step under way; no new step begins from then;
// it holds the whole target (whole) once the step under way ends. A
// second action on the whole target waits for the first, rather than
// each holding a place and waiting for the other's.
func TestPoolRestartGathersDuringItsRequest(t *testing.T) {
	p := gatedPool()
	ctx := context.Background()
	under, restart := stepAndGather(t, p, "the restart's request waited for another sequence's step")
	other := make(chan *turn, 1)
	go func() {
		tu, err := p.enter(ctx, true) // a crash asked for meanwhile
		if err != nil {
			t.Error(err)
		}
		other <- tu
	}()
	wholeDone := make(chan error, 1)
	go func() { wholeDone <- restart.whole() }()
	select {
	case err := <-wholeDone:
		t.Fatalf("the restart took the whole target with a step under way (%v)", err)
	default:
	}
	under.leave()
	if err := <-wholeDone; err != nil {
		t.Fatal(err)
	}
	if restart.places != 4 {
		t.Fatalf("the restart holds %d places, want 4", restart.places)
	}
	select {
	case <-other:
		t.Fatal("a crash took the gate during the restart")
	default:
	}
	restart.share()
	restart.leave()
	crash := <-other
	if crash == nil || crash.places != 4 {
		t.Fatal("the crash did not get the whole target after the restart")
	}
	crash.leave()
	if !p.gate.TryAcquire(4) {
		t.Fatal("a place was not given back")
	}
}

// A restart left out after it gathered (the sequence has no room for
// it) gives back the places it asked for, whether they came or not.
func TestPoolGatherLeftOutGivesItAllBack(t *testing.T) {
	p := gatedPool()
	under, restart := stepAndGather(t, p, "gather")
	restart.leave() // the rest never came: the step under way holds a place
	under.leave()
	if !p.gate.TryAcquire(4) || !p.gathering.TryAcquire(1) {
		t.Fatal("a place, or the gathering, was not given back")
	}
}

// gatedPool is a pool's gate for 4 workers, whose waits end in an error
// after 10 s.
func gatedPool() *searchPool {
	p := &searchPool{workers: 4, wait: 10 * time.Second, sleep: harness.Sleep}
	p.gate, p.gathering = newGates(4)
	return p
}

// stepAndGather begins a step, then gathers the gate for a restart
// beside it.
func stepAndGather(t *testing.T, p *searchPool, what string) (under, restart *turn) {
	t.Helper()
	under, err := p.enter(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	restart, err = p.gather(context.Background())
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return under, restart
}

// A crash that would land waits, off the gate, for the lost answers under
// way to end, and no other sequence loses one meanwhile: left out
// instead, on a pool of four or more a search's crash seldom landed (a
// sequence under way had most often lost an answer), and the bugs only a
// crash in a request's work shows went unseen.
func TestPoolCrashWaitsForTheLostAnswersToEnd(t *testing.T) {
	p := gatedPool()
	p.live, p.lost, p.lostEnded = map[*pass]*sequence{}, map[*sequence]bool{}, make(chan struct{})
	lost, crash, other := &sequence{}, &sequence{}, &sequence{}
	end := p.enlist(&pass{}, lost)
	p.swallow(lost)
	r := &pass{}
	waited := make(chan bool, 1)
	go func() { waited <- p.awaitSafeCrash(context.Background(), r, crash) }()
	// The crash registers itself before it waits.
	for deadline := time.Now().Add(10 * time.Second); !p.holdsLost(other); {
		if time.Now().After(deadline) {
			t.Fatal("a crash waiting to land holds no one's lost answers")
		}
		time.Sleep(time.Millisecond)
	}
	if p.holdsLost(crash) {
		t.Error("the waiting crash holds its own sequence's lost answers")
	}
	select {
	case ok := <-waited:
		t.Fatalf("the crash stopped waiting (%v) while another sequence's lost answer was at work", ok)
	default:
	}
	end()
	if !<-waited {
		t.Fatal("the crash may not land once the lost answer's sequence ended")
	}
	if second := p.awaitSafeCrash(context.Background(), r, other); second {
		t.Error("a second crash landed while the first still waited to")
	}
	p.landed(crash)
	if p.holdsLost(other) {
		t.Error("lost answers still held once the crash landed")
	}

	// The wait is bounded: a lost answer that never ends leaves the crash out.
	p.wait = time.Millisecond
	p.swallow(lost)
	if p.awaitSafeCrash(context.Background(), r, crash) {
		t.Fatal("the crash landed beside a lost answer still at work")
	}
	if p.holdsLost(other) {
		t.Error("a crash that gave up waiting still holds the others' lost answers")
	}
}

// A sequence's opening crash, drawn while another sequence's lost answer
// is at work, is not left out: it waits for that sequence to end, then
// lands. Left out, the search's crash landed in no request's work in 2
// to 4 of 30 searches of the reference on four to eight workers.
func TestPoolOpeningCrashWaitsToLand(t *testing.T) {
	env := envOf(t, "reference")
	r := newPass(context.Background(), env, Config{Crashes: 1, Workers: 4, Log: io.Discard}.WithDefaults(), check.MUST)
	r.pool = gatedPool()
	r.pool.live, r.pool.lost, r.pool.lostEnded = map[*pass]*sequence{}, map[*sequence]bool{}, make(chan struct{})
	lost := &sequence{}
	end := r.pool.enlist(&pass{}, lost)
	r.pool.swallow(lost)
	s, err := r.newSequence()
	if err != nil {
		t.Fatal(err)
	}
	s.crashes = 1
	crash, ok := r.action("crash")
	if !ok {
		t.Fatal("the reference has no crash")
	}
	p := planned{action: crash, key: "k1", payload: payloads[0]}
	if !s.lands(p) {
		t.Fatal("an opening crash on a fresh key would not land")
	}
	held := make(chan bool, 1)
	go func() {
		h, err := s.leftOutInTurn(p)
		if err != nil {
			t.Error(err)
		}
		held <- h
	}()
	for deadline := time.Now().Add(10 * time.Second); !r.pool.holdsLost(lost); {
		if time.Now().After(deadline) {
			t.Fatal("the opening crash was not waiting to land")
		}
		select {
		case h := <-held:
			t.Fatalf("the opening crash did not wait for the lost answer (left out: %v)", h)
		case <-time.After(time.Millisecond):
		}
	}
	// Meanwhile no other sequence loses an answer.
	other, err := r.newSequence()
	if err != nil {
		t.Fatal(err)
	}
	lose, _ := r.action("submit-lost")
	if vs, err := other.takeOne(planned{action: lose, key: "k1", payload: payloads[0]}); err != nil || vs != nil || r.heldForCrash != 1 {
		t.Fatalf("a lost answer beside the waiting crash: %v %v, %d held", vs, err, r.heldForCrash)
	}
	end()
	if <-held {
		t.Fatal("the opening crash was left out once the lost answer's sequence ended")
	}
	if r.heldForOthers != 0 {
		t.Errorf("%d crashes counted as held for another's lost answer", r.heldForOthers)
	}
}
