package property

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
)

// searchPool runs a pass's sequences on several workers at once: against an
// API whose creates take a while, the search waits mostly for answers,
// and sequences work on keys and markers of their own. Sequence i is
// drawn from the seed rapid would give it in a search one at a time
// (seedOf), each as a rapid check of its own, so the pool draws the
// same sequences, in another order and interleaved. The first sequence
// to break a rule stops the others (each at its next step) and is
// shrunk by its own worker alone; its seed replays it as a search's
// first sequence.
//
// The actions on the whole target (a restart, a crash) take the gate
// whole: they wait until every other sequence is between its steps, and
// the others wait until they are done. A fault on the faulty lane is the
// lane's, so lost answers go one at a time.
type searchPool struct {
	workers int
	base    uint64 // the seed sequence 0 is drawn from
	gate    *semaphore.Weighted
	// wait bounds a wait at the gate: the longest step another sequence
	// may be taking.
	wait time.Duration
	// deadline is when the search stops drawing new sequences
	// (Config.SearchTime).
	deadline time.Time
	next     atomic.Int64 // the next sequence to draw
	// sequences is how many the pool draws, and oneCheck the checks that
	// make rapid run one: under go test -short rapid runs a fifth of the
	// checks it is asked for, and the pool draws a fifth of the
	// sequences, as a search one at a time would.
	sequences, oneCheck int
	faulty              sync.Mutex
	// gathering lets the actions on the whole target gather the gate one
	// at a time (see gather).
	gathering *semaphore.Weighted
	// sleep spends a pause off the gate (harness.Sleep; a test's own).
	sleep func(context.Context, time.Duration) bool

	mu    sync.Mutex
	won   *pass               // the worker whose sequence failed first
	broke bool                // a worker's harness went wrong
	live  map[*pass]*sequence // each worker's sequence under way
	// lost holds the sequences under way that had an answer swallowed
	// while its work went on (see unsafeCrash).
	lost map[*sequence]bool
	// lostEnded is closed, and made anew, when a sequence in lost ends;
	// landing is the sequence whose crash waits for them to (see
	// awaitSafeCrash).
	lostEnded chan struct{}
	landing   *sequence
	reports   func(Progress) // Config.Progress, one call at a time
	steps     map[*pass]int  // steps per worker, for the progress
	// alone is how long restarts and crashes held the gate whole: the
	// part of the search no worker shortens.
	alone time.Duration
	// drained is how long they waited for the others' steps to end,
	// and wholes how many took the gate whole.
	drained time.Duration
	wholes  int
}

// newGates are the pool's gate for n workers (a step takes one place, an
// action on the whole target all n; waiters are let in in order, so a
// restart waiting keeps later steps out) and its gathering (the actions
// on the whole target one at a time: see gather).
func newGates(n int) (gate, gathering *semaphore.Weighted) {
	return semaphore.NewWeighted(int64(n)), semaphore.NewWeighted(1)
}

// drawnSequences is how many sequences rapid draws for cfg: under go test -short
// rapid runs a fifth of the checks it is asked for.
func drawnSequences(cfg Config) int {
	if testing.Short() {
		return cfg.Sequences / 5
	}
	return cfg.Sequences
}

// pooled says whether a search runs on a pool: more than one worker,
// and more than one sequence to draw (a replay draws one).
func pooled(cfg Config) bool { return min(cfg.Workers, drawnSequences(cfg)) > 1 }

// seedOf is the seed rapid draws sequence i from, starting at base: it
// adds the sequence's number to the seed before each one.
func seedOf(base uint64, i int) uint64 { return base + uint64(i)*uint64(i+1)/2 }

func newPool(e *harness.Env, cfg Config) *searchPool {
	base := cfg.Seed
	for base == 0 {
		base = rand.Uint64()
	}
	sequences, oneCheck := drawnSequences(cfg), 1
	if testing.Short() {
		oneCheck = 5
	}
	gate, gathering := newGates(cfg.Workers)
	return &searchPool{
		sequences: sequences, oneCheck: oneCheck, gate: gate, gathering: gathering, sleep: harness.Sleep,
		workers: cfg.Workers, base: base,
		wait:     2*(e.Target.InProgressTimeout+e.Settings.RequestTimeout+harness.SettleMargin) + time.Minute,
		deadline: time.Now().Add(cfg.SearchTime),
		live:     map[*pass]*sequence{}, lost: map[*sequence]bool{}, lostEnded: make(chan struct{}),
		reports: cfg.Progress, steps: map[*pass]int{},
	}
}

// runPool runs a pass on cfg.Workers workers and sums them up as one.
func runPool(ctx context.Context, e *harness.Env, cfg Config, level check.Level) (*pass, error) {
	p, workers, err := runWorkers(ctx, e, cfg, level)
	if err != nil {
		return nil, err
	}
	return p.sum(workers), nil
}

// runWorkers runs the pool's workers until each stops, and returns them.
func runWorkers(ctx context.Context, e *harness.Env, cfg Config, level check.Level) (*searchPool, []*pass, error) {
	p := newPool(e, cfg)
	l := &ledger{crashes: cfg.Crashes}
	workers := make([]*pass, min(cfg.Workers, p.sequences))
	errs := make([]error, len(workers))
	var wg sync.WaitGroup
	for w := range workers {
		r := newPass(ctx, e, cfg, level)
		r.ledger, r.pool = l, p
		if cfg.Progress != nil {
			r.cfg.Progress = p.report(r)
		}
		workers[w] = r
		wg.Go(func() { errs[w] = p.work(r) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	return p, workers, nil
}

// work draws sequences until they are all drawn, one failed, or the
// search's time is up.
func (p *searchPool) work(r *pass) error {
	for {
		i := int(p.next.Add(1) - 1)
		if i >= p.sequences || p.halted(r) {
			return nil
		}
		if r.overdue() {
			r.late++
			continue
		}
		r.index = i
		r.begun++
		tb := &rapidTB{name: fmt.Sprintf("idemspec-property-%s-%s-%d", r.level, r.env.RunID, i), log: r.cfg.Log}
		k := Knobs{Checks: p.oneCheck, Steps: r.cfg.Steps, Seed: seedOf(p.base, i), ShrinkTime: r.cfg.ShrinkTime}
		if err := Drive(tb, k, r.sequence); err != nil {
			p.stop()
			return err
		}
		if r.err != nil {
			p.stop()
			return fmt.Errorf("property: %w", r.err)
		}
		if r.best != nil {
			if p.winner() == r {
				r.failingSeed = failingSeed(tb.message())
			}
			return nil
		}
		if tb.Failed() && !p.halted(r) {
			p.stop()
			return fmt.Errorf("property: rapid: %s", tb.message())
		}
	}
}

// claim makes r the worker whose counterexample the search reports, if
// no other's sequence failed first.
func (p *searchPool) claim(r *pass) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.won == nil {
		p.won = r
	}
}

func (p *searchPool) winner() *pass {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.won
}

// stop halts every worker: the harness went wrong.
func (p *searchPool) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.broke = true
}

// halted says whether r is to stop: another worker's sequence failed
// (or the harness did). A search alone never halts here.
func (p *searchPool) halted(r *pass) bool {
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.broke || (p.won != nil && p.won != r)
}

// enter waits for a turn at the gate: whole for an action on the
// whole target, which waits until the others are between their steps.
// Outside a pool the turn is nil, and its methods do nothing.
func (p *searchPool) enter(ctx context.Context, whole bool) (*turn, error) {
	if p == nil {
		return nil, nil
	}
	if whole {
		t, err := p.gather(ctx)
		if err != nil {
			return nil, err
		}
		if err := t.whole(); err != nil {
			t.leave()
			return nil, err
		}
		return t, nil
	}
	if err := p.acquire(ctx, p.gate, 1); err != nil {
		return nil, err
	}
	return &turn{p: p, places: 1}, nil
}

// gather begins a turn on the whole target that takes one place at once
// and asks for the others' beside it: new steps wait from now, while the
// steps under way end. A restart sends its request meanwhile and waits
// for the rest (whole) only when the answer is in, so that the others'
// steps end during the target's work instead of before it. The actions
// on the whole target gather one at a time (two, each holding one place
// and waiting for the rest, would wait for each other).
func (p *searchPool) gather(ctx context.Context) (*turn, error) {
	if p == nil {
		return nil, nil
	}
	if err := p.acquire(ctx, p.gathering, 1); err != nil {
		return nil, err
	}
	if err := p.acquire(ctx, p.gate, 1); err != nil {
		p.gathering.Release(1)
		return nil, err
	}
	rest, cancel := context.WithCancel(ctx)
	t := &turn{p: p, places: 1, gathers: true, rest: make(chan error, 1), cancel: cancel}
	go func() { t.rest <- p.acquire(rest, p.gate, int64(p.workers-1)) }()
	return t, nil
}

// acquire takes n places of sem, waiting at most p.wait.
func (p *searchPool) acquire(ctx context.Context, sem *semaphore.Weighted, n int64) error {
	wait, cancel := context.WithTimeout(ctx, p.wait)
	defer cancel()
	if err := sem.Acquire(wait, n); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("the search's other sequences did not come to a stop between their steps within %s", p.wait)
	}
	return nil
}

// turn is a step's hold on the pool's gate: one place, or every place
// for an action on the whole target.
type turn struct {
	p      *searchPool
	places int64
	since  time.Time // when it took the gate whole
	err    error     // see lost
	// gathers: the turn holds the pool's gathering (see gather); rest
	// brings the places it asked for, and cancel gives up asking.
	gathers bool
	rest    chan error
	cancel  context.CancelFunc
}

// whole waits for the places gather asked for: the turn then holds the
// whole target.
func (t *turn) whole() error {
	if t == nil || t.rest == nil {
		return nil
	}
	asked := time.Now()
	err := <-t.rest
	t.rest = nil
	t.cancel()
	if err != nil {
		return err
	}
	t.places = int64(t.p.workers)
	t.since = time.Now()
	t.p.mu.Lock()
	t.p.drained += t.since.Sub(asked)
	t.p.wholes++
	t.p.mu.Unlock()
	return nil
}

// share gives back all but one place once the part of a step that needs
// the whole target is over (the restart or crash itself): the rest of
// the step works on the sequence's own keys, beside the others' steps.
func (t *turn) share() {
	if t == nil {
		return
	}
	if t.rest != nil { // the rest never came to be needed
		t.cancel()
		if <-t.rest == nil {
			t.p.gate.Release(int64(t.p.workers - 1))
		}
		t.rest = nil
	}
	if t.places > 1 {
		t.p.mu.Lock()
		t.p.alone += time.Since(t.since)
		t.p.mu.Unlock()
		t.p.gate.Release(t.places - 1)
		t.places = 1
	}
	if t.gathers {
		t.p.gathering.Release(1)
		t.gathers = false
	}
}

// leave gives the turn's places back.
func (t *turn) leave() {
	if t == nil {
		return
	}
	t.share()
	if t.places == 1 {
		t.p.gate.Release(1)
	}
	t.places = 0
}

// pause spends a settle's wait between two attempts (harness.Attempt's
// Pause) off the gate: none of the step's requests is in flight, so a
// restart or crash the others asked for may land meanwhile, as between
// two steps, instead of waiting out a key's in-progress timeout (seconds,
// after a crash) with every other sequence. The sequence's model is not
// read until the place is back. A turn on the whole target, or
// gathering it, keeps its places.
func (t *turn) pause(ctx context.Context, d time.Duration) bool {
	if t == nil || t.places != 1 || t.gathers {
		return harness.Sleep(ctx, d)
	}
	t.p.gate.Release(1)
	t.places = 0
	if !t.p.sleep(ctx, d) {
		return false
	}
	if err := t.p.acquire(ctx, t.p.gate, 1); err != nil {
		t.err = fmt.Errorf("a settle's wait for its place back: %w", err)
		return false
	}
	t.places = 1
	return true
}

// lost says why the turn's step went on without its place (a pause
// that could not get it back), or nil.
func (t *turn) lost() error {
	if t == nil {
		return nil
	}
	return t.err
}

// enlist makes s r's sequence under way, for the restarts of the others
// to reach; the returned func strikes it off.
func (p *searchPool) enlist(r *pass, s *sequence) func() {
	if p == nil {
		return func() {}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.live[r] = s
	return func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		delete(p.live, r)
		if p.lost[s] {
			delete(p.lost, s)
			close(p.lostEnded)
			p.lostEnded = make(chan struct{})
		}
	}
}

// swallow notes that s had an answer swallowed while its work went on:
// until s ends, no other sequence's crash may land.
func (p *searchPool) swallow(s *sequence) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lost[s] = true
}

// restarted tells every other sequence under way that the target
// restarted: their keys answered before it are durable from now on, as
// their own restart would have made them. The caller holds the gate
// whole, so none of them is in a step.
func (p *searchPool) restarted(by *sequence) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.live {
		if s != by {
			s.model.Restarted()
		}
	}
}

// unsafeCrash says whether a crash would abandon another sequence's
// work: an answer it lost may still be finishing on the server (the
// harness gave up once the oracle showed the commit), and a sequence
// holds such a crash of its own (see hold). A sequence that lost one
// stays unsafe until it ends, so the answer may be given in any step's
// turn; one that may lose one before the crash lands is asked again with
// the gate whole.
func (p *searchPool) unsafeCrash(by *sequence, pl planned) bool {
	if p == nil || pl.action.name != "crash" {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.othersLost(by)
}

// othersLost says whether a sequence other than by lost an answer that
// may still be at work; the caller holds p.mu.
func (p *searchPool) othersLost(by *sequence) bool {
	for s := range p.lost {
		if s != by {
			return true
		}
	}
	return false
}

// awaitSafeCrash waits, off the gate, until no other sequence has a lost
// answer at work, so that s's crash may land in its request's work; it
// says whether it may. Meanwhile no other sequence loses an answer
// (holdsLost), so the wait ends once those under way have ended. Without
// it a crash that would land is left out whenever another sequence lost
// an answer, and on a pool of four or more that is most of the time: a
// search could end without its crash landing, and miss the bugs only a
// crash in a request's work shows (split-commit, stuck-inflight). One
// crash waits at a time; the wait is bounded by the pool's longest step
// (p.wait), the search stopping, and ctx.
func (p *searchPool) awaitSafeCrash(ctx context.Context, r *pass, s *sequence) bool {
	p.mu.Lock()
	if p.landing != nil {
		p.mu.Unlock()
		return false
	}
	p.landing = s
	p.mu.Unlock()
	bound := time.NewTimer(p.wait)
	defer bound.Stop()
	for {
		p.mu.Lock()
		unsafe, ended := p.othersLost(s), p.lostEnded
		p.mu.Unlock()
		if !unsafe {
			return true
		}
		select {
		case <-ended:
		case <-bound.C:
			p.landed(s)
			return false
		case <-ctx.Done():
			p.landed(s)
			return false
		}
		if p.halted(r) {
			p.landed(s)
			return false
		}
	}
}

// landed ends s's wait to crash (awaitSafeCrash): the others may lose
// answers again.
func (p *searchPool) landed(s *sequence) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.landing == s {
		p.landing = nil
	}
}

// holdsLost says whether another sequence's crash waits to land
// (awaitSafeCrash), so s loses no answer meanwhile.
func (p *searchPool) holdsLost(s *sequence) bool {
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.landing != nil && p.landing != s
}

// holdFaulty holds the faulty lane for one lost answer; the returned
// func lets it go.
func (p *searchPool) holdFaulty() func() {
	if p == nil {
		return func() {}
	}
	p.faulty.Lock()
	return p.faulty.Unlock
}

// report is worker r's Progress: the pool's, one call at a time.
func (p *searchPool) report(r *pass) func(Progress) {
	return func(pr Progress) {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.steps[r] = pr.Steps
		pr.Steps = 0
		for _, n := range p.steps {
			pr.Steps += n
		}
		pr.Sequences = min(int(p.next.Load()), pr.Of)
		p.reports(pr)
	}
}

// sum folds the workers' passes into one: the winner's counterexample
// (if a sequence failed), every worker's counts, and the first sequence
// to break a SHOULD rule.
func (p *searchPool) sum(workers []*pass) *pass {
	out := p.won
	if out == nil {
		out = workers[0]
	}
	for _, r := range workers {
		if r != out {
			out.sequences += r.sequences
			out.replayed += r.replayed
			out.skipped += r.skipped
			out.late += r.late
			out.ran += r.ran
			if out.missed == "" {
				out.missed = r.missed
			}
			out.begun += r.begun
			out.unpaid += r.unpaid
			out.held += r.held
			out.heldForOthers += r.heldForOthers
			out.heldForCrash += r.heldForCrash
			out.steps += r.steps
			out.freshBursts += r.freshBursts
			out.stale += r.stale
			for name, n := range r.drawn {
				out.drawn[name] += n
			}
			for name, n := range r.mayAccepted {
				out.mayAccepted[name] += n
			}
		}
		if r.shouldSeen != nil && (out.shouldSeen == nil || r.shouldIndex < out.shouldIndex) {
			out.shouldSeen, out.shouldIndex, out.shouldAt = r.shouldSeen, r.shouldIndex, r.shouldAt
		}
	}
	out.pool = nil // the sum reads as one search
	out.alone, out.drained, out.wholes = p.alone, p.drained, p.wholes
	out.cfg.Seed = p.base
	return out
}
