package scenarios

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"pgregory.net/rapid"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/harness/model"
)

// The properties: rapid draws random sequences of actions (submit, submit
// with the answer lost, tight burst, look-up, a variation of a request, a
// create made to fail, one without a key or with a malformed key, as the
// target supports them) over a small pool of keys and payloads;
// harness/model judges every step against the worlds a correct server
// allows; a failure is shrunk to a short sequence the report lists step
// by step. P1 holds the MUST rules, P2 the SHOULD rules; one search
// serves both.

// propertyTimeout bounds a property spec however many checks and steps
// were asked for; at the defaults it takes seconds.
const propertyTimeout = 30 * time.Minute

// PropertyConfig sets how hard the properties search.
type PropertyConfig struct {
	// Checks is how many random sequences rapid tries.
	Checks int
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
	// ShrinkTime bounds the search for a shorter counterexample.
	ShrinkTime time.Duration
	// Crashes is how many crashes may land in a request's work in one
	// search (on a target that can be crashed): each leaves its key
	// claimed for the target's in-progress timeout, which is waited out.
	// Crashes that hit a request doing no work cost nothing and are not
	// counted. Negative: none.
	Crashes int
	// Replay renders the command line that runs the properties again from
	// a failing sequence's seed (nil: the report gives the seed alone).
	Replay func(seed int64, c PropertyConfig) string
	// Log gets rapid's own output (nil: discarded).
	Log io.Writer
}

// DefaultPropertyConfig is tuned to catch every mutant in seconds.
func DefaultPropertyConfig() PropertyConfig {
	return PropertyConfig{Checks: 25, Steps: 25, ShrinkTime: 20 * time.Second, Crashes: 1}
}

// withDefaults fills the fields left zero.
func (c PropertyConfig) withDefaults() PropertyConfig {
	d := DefaultPropertyConfig()
	if c.Checks == 0 {
		c.Checks = d.Checks
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
	return c
}

// PropertyResult is what the search found for one property check.
type PropertyResult struct {
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

// PropertyResults are the two property checks' results of one search.
type PropertyResults struct {
	Must   PropertyResult // P1
	Should PropertyResult // P2
}

// searched holds the suite's one search, which both property specs share.
var searched struct {
	sync.Mutex
	env *harness.Env
	res PropertyResults
	err error
	// by is the check whose spec ran the search, in took.
	by   string
	took time.Duration
}

// property is a property check's spec body.
func property(id string) func(context.Context, *harness.Env, *history.History, *check.Evidence) (check.Verdict, error) {
	return func(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error) {
		searched.Lock()
		if searched.env != e {
			_, o := current()
			cfg := o.Property
			cfg.Seed = uint64(GinkgoRandomSeed())
			cfg.Log = GinkgoWriter
			searched.env, searched.by = e, id
			start := time.Now()
			searched.res, searched.err = CheckProperty(ctx, e, cfg)
			searched.took = time.Since(start)
		}
		res, err := searched.res, searched.err
		by, took := searched.by, searched.took
		searched.Unlock()
		if err != nil {
			return check.Verdict{}, err
		}
		r := res.Must
		if id == "P2" {
			r = res.Should
		}
		// The counterexample's exchanges, numbered as its steps cite them.
		for _, x := range r.Evidence.History {
			h.Add(x)
		}
		*ev = r.Evidence
		if by != id {
			// Its duration is only this read: say where the time went.
			ev.Notes = append(slices.Clone(ev.Notes), fmt.Sprintf("one search serves P1 and P2: it ran in %s's time (%s)", by, took.Round(time.Millisecond)))
		}
		return r.Verdict, nil
	}
}

// CheckProperty searches the Env's target for sequences that break the
// model's rules: first the MUST rules (P1), noting where the SHOULD rules
// (P2) break; then, if they did and P1 held, once more from the same seed
// with the SHOULD rules failing, to shrink that counterexample too. An
// error means the harness could not run the search (flags, oracle,
// context).
func CheckProperty(ctx context.Context, e *harness.Env, cfg PropertyConfig) (PropertyResults, error) {
	cfg = cfg.withDefaults()
	must, err := search(ctx, e, cfg, check.MUST)
	if err != nil {
		return PropertyResults{}, err
	}
	out := PropertyResults{Must: must.result("P1")}
	if must.best != nil {
		// The conventions are judged on a target that keeps the core
		// guarantee; one that breaks it has that to mend first.
		out.Should = PropertyResult{Verdict: check.Skip("P2",
			"P1 failed: the SHOULD rules are judged once the MUST rules hold")}
		return out, nil
	}
	seen := must.shouldSeen
	if seen == nil {
		out.Should = PropertyResult{Verdict: check.Judge("P2")}
		out.Should.Evidence.Notes = must.notes()
		return out, nil
	}
	// From the same seed the same sequences are drawn again, so the one
	// that broke a SHOULD rule comes up again as sequence shouldIndex;
	// should a race not recur, the search goes on through the others.
	should, err := search(ctx, e, cfg, check.SHOULD)
	if err != nil {
		return PropertyResults{}, err
	}
	again := "searched again with them failing: " + should.summary()
	if should.best == nil {
		// Not seen again (a race that did not recur): the sequence that
		// showed it, unshrunk, is the counterexample.
		should.best, should.failingSeed = seen, 0
		seen.failed = seen.noted
		seen.markNoted()
		again = "searched again with them failing, no sequence broke them (a race that did not recur): the sequence that did is shown unshrunk"
	}
	out.Should = should.result("P2")
	out.Should.FirstCounterexample, out.Should.FirstSequence = must.shouldAt, must.shouldIndex+1
	out.Should.Evidence.Notes = append(must.notes(), fmt.Sprintf("the SHOULD rules first broke in sequence %d; %s", must.shouldIndex+1, again))
	return out, nil
}

// search runs rapid once with the rules of level failing a sequence.
func search(ctx context.Context, e *harness.Env, cfg PropertyConfig, level check.Level) (*propertyRun, error) {
	if err := configureRapid(cfg); err != nil {
		return nil, err
	}
	r := &propertyRun{
		ctx: ctx, env: e, cfg: cfg, level: level, start: time.Now(),
		model: model.Convention{
			Mismatch: e.Target.Profile.Mismatch, InFlight: e.Target.Profile.InFlight,
			MissingKey: e.Target.Profile.MissingKey, Volatile: e.Target.Volatile,
		},
		actions:    availableActions(e),
		twinTenant: twinTenant(e.Target),
		drawn:      map[string]int{},
		crashes:    cfg.Crashes,
	}
	tb := &rapidTB{name: "idemspec-property-" + string(level) + "-" + e.RunID, log: cfg.Log}
	rapid.Check(tb, r.sequence)
	if r.err != nil {
		return nil, fmt.Errorf("property: %w", r.err)
	}
	if r.best == nil && tb.Failed() {
		// rapid failed without a sequence breaking a rule: its own
		// trouble (say, no valid action), not the target's.
		return nil, fmt.Errorf("property: rapid: %s", tb.message())
	}
	r.failingSeed = failingSeed(tb.message())
	return r, nil
}

// result is the verdict and evidence of check c from this search.
func (r *propertyRun) result(id string) PropertyResult {
	res := PropertyResult{FirstCounterexample: r.first, FirstSequence: r.firstSequence}
	if r.best == nil {
		res.Verdict = check.Judge(id)
		res.Evidence.Notes = r.notes()
		return res
	}
	res.FailingSeed = r.failingSeed
	res.Verdict = check.Judge(id, r.best.failed...)
	res.Evidence = r.best.evidence()
	res.Evidence.Notes = r.notes()
	if r.failingSeed != 0 && r.cfg.Replay != nil {
		// The replay draws the failing sequence first, with the crashes
		// it had left.
		replay := r.cfg
		replay.Crashes = r.best.startCrashes
		if replay.Crashes == 0 {
			replay.Crashes = -1
		}
		res.Evidence.Replay = r.cfg.Replay(int64(r.failingSeed), replay)
	}
	return res
}

// Per property step, as measured against the reference at the defaults:
// about 0.9 steps taken per step asked for (a sequence's length is drawn,
// restarts and crashes are left out), 1.6 creates and 4.5 oracle reads
// and look-ups each. The most a step sends is the largest burst plus an
// oracle read for each of the sequence's five subjects (three keys, the
// keyless creates, the malformed keys) and a look-up.
const (
	propertyPerStep    = 6
	propertyMostInStep = maxBurst + 5 + 1
)

// propertyPlan is P1's and P2's plan: one search serves both, so a check
// whose partner runs too adds nothing of its own (partner "": it never
// shares). The search's requests are random: Requests is the usual count,
// MaxRequests the most the search itself can send; shrinking a failure
// adds more, bounded by time, and --property-budget caps the creates of
// both.
func propertyPlan(partner string) func(Planning) Planned {
	return func(pl Planning) Planned {
		pc, t := pl.Property, pl.Target
		if partner != "" && pl.Selected(partner) {
			return Planned{Note: "shares " + partner + "'s search"}
		}
		p := Planned{
			Requests:    pc.Checks * pc.Steps * propertyPerStep,
			MaxRequests: pc.Checks * 4 * pc.Steps * propertyMostInStep,
			Note:        "random sequences; shrinking a failure sends more, for up to " + pc.ShrinkTime.String(),
		}
		if pc.Budget > 0 {
			p.Note += fmt.Sprintf("; at most %d creates (--property-budget)", pc.Budget)
		}
		if t.CannotRestart() == "" {
			p.Restarts = pc.Checks // one per sequence at most
			p.Faults = append(p.Faults, "restarts")
		}
		if t.CannotCrash() == "" && pc.Crashes > 0 {
			p.Restarts += pc.Crashes
			p.Faults = append(p.Faults, fmt.Sprintf("%d crash mid-request (more where no work runs)", pc.Crashes))
		}
		p.Faults = append(p.Faults, harness.ResponseLoss{}.Name()+" or "+harness.ResetPeer{}.Name()+" on lost answers")
		return p
	}
}
