package property

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/model"
)

// Config sets how hard the properties search.
type Config struct {
	// Sequences is how many random sequences rapid tries (its -rapid.checks).
	Sequences int
	// Steps is the average number of actions in a sequence.
	Steps int
	// Budget caps the create requests the properties send in all,
	// shrinking included (0: no cap), for targets where requests cost.
	// It is checked before each action: an action under way finishes.
	Budget int
	// Seed is rapid's base seed; sequence i is drawn from a seed derived
	// from it, and a failing sequence's own seed, given here, replays it
	// as the first sequence. 0 lets rapid draw one.
	Seed uint64
	// Counterexample, when set, is the one sequence the search runs: a
	// counterexample's actions as a report gives them (planText), taken
	// as given, with nothing drawn and nothing shrunk.
	Counterexample string
	// ShrinkTime bounds the search for a shorter counterexample.
	ShrinkTime time.Duration
	// Crashes is how many crashes may land in a request's work in one
	// search (on a target that can be crashed): each leaves its key
	// claimed for the target's in-progress timeout, which is waited out.
	// Crashes that hit a request doing no work cost nothing and are not
	// counted. Negative: none.
	Crashes int
	// Replay renders the command line that runs the properties again from
	// a failing sequence's seed, with the config that reproduces it, on
	// the operation the search drove ("": the target's only one); nil:
	// the report gives the seed alone.
	Replay func(seed int64, c Config, operation string) string
	// Workers is how many sequences run at once (1: one after another;
	// 0: sized to the API, WorkersFor). Each works on keys of its own; a
	// restart or a crash waits until the others are between their
	// steps. A search of one sequence (a replay) runs alone whatever it
	// says.
	Workers int
	// SearchTime bounds the search: past it, no new sequence starts
	// (shrinking has ShrinkTime of its own). 0: derived from the API's
	// latency (SearchTimeFor).
	SearchTime time.Duration
	// Log gets rapid's own output (nil: discarded).
	Log io.Writer
	// Progress is told where the search is at each sequence and step
	// (nil: nobody asks). It is called on the search's goroutine and
	// must return quickly.
	Progress func(Progress)
}

// DefaultConfig is tuned to catch every mutant in seconds.
func DefaultConfig() Config {
	return Config{Sequences: 25, Steps: 25, ShrinkTime: 20 * time.Second, Crashes: 1}
}

// WithDefaults fills the fields left zero.
func (c Config) WithDefaults() Config {
	d := DefaultConfig()
	if c.Sequences == 0 {
		c.Sequences = d.Sequences
	}
	if c.Steps == 0 {
		c.Steps = d.Steps
	}
	if c.ShrinkTime == 0 {
		c.ShrinkTime = d.ShrinkTime
	}
	if c.Crashes == 0 {
		c.Crashes = d.Crashes
	}
	c.Crashes = max(c.Crashes, 0)
	if c.Log == nil {
		c.Log = io.Discard
	}
	if c.Counterexample != "" {
		c.Sequences = oneSequence()
	}
	return c
}

// Result is what the search found for one property check.
type Result struct {
	Verdict  check.Verdict
	Evidence check.Evidence
	// FailingSeed is the seed of the sequence that failed (0: none).
	FailingSeed uint64
	// FirstCounterexample is the time from the start until the search
	// first saw the check's rules broken (0: never), and FirstSequence
	// how many sequences had run by then.
	FirstCounterexample time.Duration
	FirstSequence       int
}

// Results are the two property checks' results of one search.
type Results struct {
	Must   Result // P1
	Should Result // P2
}

// Search searches the Env's target for sequences that break the
// model's rules: first the MUST rules (P1), noting where the SHOULD rules
// (P2) break; then, if they did and P1 held, once more from the same seed
// with the SHOULD rules failing, to shrink that counterexample too. An
// error means the harness could not run the search (flags, oracle,
// context).
func Search(ctx context.Context, e *harness.Env, cfg Config) (Results, error) {
	cfg = cfg.WithDefaults()
	must, err := runPass(ctx, e, cfg, check.MUST)
	if err != nil {
		return Results{}, err
	}
	out := Results{Must: must.result("P1")}
	if v := out.Must.Verdict; v.Status == check.ERROR {
		// The SHOULD rules were no more exercised than the MUST ones.
		out.Should = Result{Verdict: check.Errored("P2", errors.New(v.Reason))}
		out.Should.Evidence.Notes = out.Must.Evidence.Notes
		return out, nil
	}
	if must.best != nil {
		// The conventions are judged on a target that keeps the core
		// guarantee; one that breaks it has that to mend first.
		out.Should = Result{Verdict: check.Skip("P2",
			"P1 failed: the SHOULD rules are judged once the MUST rules hold")}
		return out, nil
	}
	seen := must.shouldSeen
	if seen == nil {
		out.Should = Result{Verdict: check.Judge("P2")}
		out.Should.Evidence.Notes = must.notes()
		return out, nil
	}
	// From the same seed the same sequences are drawn again, so the one
	// that broke a SHOULD rule comes up again as sequence shouldIndex;
	// should a race not recur, the search goes on through the others.
	should, err := runPass(ctx, e, cfg, check.SHOULD)
	if err != nil {
		return Results{}, err
	}
	again := "searched again with them failing: " + should.summary()
	if should.best == nil {
		// Not seen again (a race that did not recur): the sequence that
		// showed it, unshrunk, is the counterexample.
		should.best, should.failingSeed = seen, 0
		seen.failed = seen.noted
		seen.markNoted()
		again = "searched again with them failing, no sequence broke them (" + RaceDidNotRecur + "): the sequence that did is shown unshrunk"
	}
	out.Should = should.result("P2")
	out.Should.FirstCounterexample, out.Should.FirstSequence = must.shouldAt, must.shouldIndex+1
	notes := append(must.notes(), fmt.Sprintf("the SHOULD rules first broke in sequence %d; %s", must.shouldIndex+1, again))
	if out.Should.Evidence.Replay != "" {
		notes = append(notes, should.replayNotes(Config{Crashes: should.best.replayCrashes()})...)
	}
	out.Should.Evidence.Notes = notes
	return out, nil
}

// runPass runs the search's sequences with the rules of level failing a
// sequence: on a pool of workers, or rapid once over them all.
func runPass(ctx context.Context, e *harness.Env, cfg Config, level check.Level) (*pass, error) {
	if cfg.Workers == 0 {
		cfg.Workers = WorkersFor(e.CreateLatency())
	}
	if cfg.SearchTime == 0 {
		cfg.SearchTime = SearchTimeFor(cfg, e.CreateLatency())
	}
	if pooled(cfg) {
		return runPool(ctx, e, cfg, level)
	}
	r := newPass(ctx, e, cfg, level)
	if err := r.drive(); err != nil {
		return nil, err
	}
	return r, nil
}

// drive runs rapid over the pass's sequences, one after another.
func (r *pass) drive() error {
	tb := &rapidTB{name: "idemspec-property-" + string(r.level) + "-" + r.env.RunID, log: r.cfg.Log}
	k := Knobs{Checks: r.cfg.Sequences, Steps: r.cfg.Steps, Seed: r.cfg.Seed, ShrinkTime: r.cfg.ShrinkTime}
	if err := Drive(tb, k, r.sequence); err != nil {
		return err
	}
	if r.err != nil {
		return fmt.Errorf("property: %w", r.err)
	}
	if r.best == nil && tb.Failed() {
		// rapid failed without a sequence breaking a rule: its own
		// trouble (say, no valid action), not the target's.
		return fmt.Errorf("property: rapid: %s", tb.message())
	}
	r.failingSeed = failingSeed(tb.message())
	return nil
}

// WorkersFor is how many sequences run at once when no number is given:
// QuickWorkers, or SlowWorkers against an API whose preflight create
// took SlowCreate or longer. A sequence spends most of a slow API's step
// waiting for its answer, so more of them at once fill the wait (the
// managed reference with a 200 ms handler: the search 6.0 s on six
// workers, 7.5 s on four); against a quick API more would only contend
// for the processor the bursts need to arrive together.
func WorkersFor(latency time.Duration) int {
	if latency >= SlowCreate {
		return SlowWorkers
	}
	return QuickWorkers
}

// The sizes of the search's pool (WorkersFor).
const (
	QuickWorkers = 4
	SlowWorkers  = 6
	SlowCreate   = 100 * time.Millisecond
)

// SearchTimeFor is the search's time when none is given: three times
// what its sequences' steps take one after another at the API's latency
// for a create (about two of those a step), shared among the workers,
// and never under MinSearchTime (latency 0: not measured).
func SearchTimeFor(cfg Config, latency time.Duration) time.Duration {
	steps := time.Duration(cfg.Sequences * cfg.Steps)
	return max(MinSearchTime, 3*steps*2*latency/time.Duration(max(cfg.Workers, 1)))
}

// MinSearchTime is the least time a search is given by default: a
// loaded machine slows even a fast API's search by some multiple.
const MinSearchTime = 3 * time.Minute

// overdue says whether the search's time is up for new sequences; a
// counterexample being shrunk has its own time.
func (r *pass) overdue() bool {
	return r.best == nil && r.cfg.SearchTime > 0 && time.Since(r.start) > r.cfg.SearchTime
}

// newPass is a pass of the search with the rules of level failing a
// sequence, with the actions e's target supports and budgets of its own
// (a pool's workers share one ledger instead).
func newPass(ctx context.Context, e *harness.Env, cfg Config, level check.Level) *pass {
	return &pass{
		ctx: ctx, env: e, cfg: cfg, level: level, start: time.Now(),
		model: model.Convention{
			Mismatch: e.Target.Profile.Mismatch, InFlight: e.Target.Profile.InFlight,
			MissingKey: e.Target.Profile.MissingKey, Volatile: e.Target.Volatile,
		},
		actions:     availableActions(e),
		twinTenant:  twinTenant(e.Target),
		drawn:       map[string]int{},
		mayAccepted: map[mayCase]int{},
		ledger:      &ledger{crashes: cfg.Crashes},
	}
}

// result is the verdict and evidence of check c from this search.
func (r *pass) result(id string) Result {
	res := Result{FirstCounterexample: r.first, FirstSequence: r.firstSequence}
	if r.best == nil {
		res.Verdict = check.Judge(id)
		if why := r.unexercised(); why != "" {
			res.Verdict = check.Errored(id, errors.New(why))
		}
		res.Evidence.Notes = r.notes()
		return res
	}
	res.FailingSeed = r.failingSeed
	res.Verdict = check.Judge(id, r.best.failed...)
	res.Evidence = r.best.evidence()
	res.Evidence.Notes = r.notes()
	if r.failingSeed != 0 && r.cfg.Replay != nil {
		replay := r.cfg
		replay.Crashes = r.best.replayCrashes()
		replay.Counterexample = r.best.planText()
		res.Evidence.Replay = r.cfg.Replay(int64(r.failingSeed), replay, r.env.Target.Operation)
		res.Evidence.Notes = append(res.Evidence.Notes, r.replayNotes(replay)...)
	}
	return res
}

// MinSequences is the fewest sequences a search must run against the
// target for its finding nothing to be a PASS: a search whose time or
// budget ran out before any began has exercised no rule.
const MinSequences = 1

// unexercised says why a search that found no counterexample is no
// evidence ("": it is): fewer sequences ran than MinSequences, or the
// crashes meant to land in a request's work all came after the answer.
func (r *pass) unexercised() string {
	if r.ran < MinSequences {
		why := "nothing stopped it"
		switch {
		case r.late > 0:
			why = fmt.Sprintf("its time ran out first (--search-time %s): raise --search-time", r.cfg.SearchTime)
		case r.skipped > 0:
			why = fmt.Sprintf("its request budget ran out first (--property-budget %d): raise --property-budget", r.cfg.Budget)
		}
		return fmt.Sprintf("the search ran %d sequences against the target, fewer than %d, so it exercised no rule: %s", r.ran, MinSequences, why)
	}
	return r.ledger.crashEvidence(r.missed)
}

// replayNotes say why a replay line gives fewer crashes than its
// counterexample shows, when it does.
func (r *pass) replayNotes(replay Config) []string {
	if n := r.best.crashSteps(); max(replay.Crashes, 0) < n {
		return []string{fmt.Sprintf("the replay line gives no crashes although the steps show %d: each crashed a request doing no work, which takes none of the budget, and the sequence held a crash that would have landed as its first action for want of one; a budget would land it", n)}
	}
	return nil
}

// replayCrashes is the --crashes that draws the sequence again as it
// ran (negative: none). The budget decides one thing only: whether a
// crash drawn as the first action that would land in a request's work
// lands (crashes elsewhere, or on a request doing no work, go anyway).
// So the line gives as many crashes as the table shows crash steps,
// which reads true and replays the same, unless the sequence held such
// an opening crash for want of budget: then it must say none, or the
// replay would land it.
func (s *sequence) replayCrashes() int {
	if s.heldOpening {
		return -1
	}
	if n := max(s.startCrashes, s.crashSteps()); n > 0 {
		return n
	}
	return -1
}

// crashSteps counts the sequence's steps that crashed the target.
func (s *sequence) crashSteps() int {
	n := 0
	for _, st := range s.steps {
		if st.Fault == "crash" {
			n++
		}
	}
	return n
}
