package scenarios

import (
	"context"
	"fmt"
	"io"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"pgregory.net/rapid"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/harness/model"
)

// The property: rapid draws random sequences of actions (submit, submit
// with the answer lost, tight burst, look-up, and whatever else the target
// supports) over a small pool of keys and payloads, harness/model judges
// every step against the worlds a correct server allows, and a failure is
// shrunk to a short sequence the report lists step by step.
var _ = Describe("property", func() {
	It(check.P1.Title, Label(check.P1.ID, string(check.P1.Level), check.P1.Group),
		SpecTimeout(propertyTimeout), run(check.P1, property))
})

// propertyTimeout bounds the property spec however many checks and steps
// were asked for; at the defaults it takes seconds.
const propertyTimeout = 30 * time.Minute

// PropertyConfig sets how hard the property searches.
type PropertyConfig struct {
	// Checks is how many random sequences rapid tries.
	Checks int
	// Steps is the average number of actions in a sequence.
	Steps int
	// Budget caps the create requests the property sends in all,
	// shrinking included (0: no cap), for targets where requests cost.
	// It is checked before each action: an action under way finishes.
	Budget int
	// Seed is rapid's base seed; sequence i is drawn from a seed derived
	// from it, and a failing sequence's own seed, given here, replays it
	// as the first sequence. 0 lets rapid draw one.
	Seed uint64
	// ShrinkTime bounds the search for a shorter counterexample.
	ShrinkTime time.Duration
	// Replay renders the command line that runs the property again from
	// a failing sequence's seed (nil: the report gives the seed alone).
	Replay func(seed int64, c PropertyConfig) string
	// Log gets rapid's own output (nil: discarded).
	Log io.Writer
}

// DefaultPropertyConfig is tuned to catch every mutant in seconds.
func DefaultPropertyConfig() PropertyConfig {
	return PropertyConfig{Checks: 25, Steps: 25, ShrinkTime: 20 * time.Second}
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
	if c.Log == nil {
		c.Log = io.Discard
	}
	return c
}

// PropertyResult is what one property run found.
type PropertyResult struct {
	Verdict  check.Verdict
	Evidence check.Evidence
	// Sequences is how many sequences ran (shrinking included).
	Sequences int
	// FailingSeed is the seed of the first failing sequence (0: none).
	FailingSeed uint64
	// FirstCounterexample is the time from the start until the first
	// failing sequence ended (0: none failed), and FirstSequence how
	// many sequences had run by then.
	FirstCounterexample time.Duration
	FirstSequence       int
}

// property is P1's spec body.
func property(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error) {
	_, o := current()
	cfg := o.Property
	cfg.Seed = uint64(GinkgoRandomSeed())
	cfg.Log = GinkgoWriter
	res, err := CheckProperty(ctx, e, cfg)
	if err != nil {
		return check.Verdict{}, err
	}
	// The counterexample's exchanges, numbered as its steps cite them.
	for _, x := range res.Evidence.History {
		h.Add(x)
	}
	*ev = res.Evidence
	return res.Verdict, nil
}

// CheckProperty runs the property against the Env's target. An error
// means the harness could not run it (flags, oracle, context).
func CheckProperty(ctx context.Context, e *harness.Env, cfg PropertyConfig) (PropertyResult, error) {
	cfg = cfg.withDefaults()
	if err := configureRapid(cfg); err != nil {
		return PropertyResult{}, err
	}
	r := &propertyRun{
		ctx: ctx, env: e, cfg: cfg, start: time.Now(),
		statuses: model.Statuses{Mismatch: e.Target.Profile.Mismatch, InFlight: e.Target.Profile.InFlight},
		actions:  availableActions(e),
		drawn:    map[string]int{},
	}
	tb := &rapidTB{name: "idemspec-" + check.P1.ID + "-" + e.RunID, log: cfg.Log}
	rapid.Check(tb, r.sequence)
	if r.err != nil {
		return PropertyResult{}, fmt.Errorf("property: %w", r.err)
	}
	res := PropertyResult{Sequences: r.sequences, FirstCounterexample: r.first, FirstSequence: r.firstSequence}
	if r.best == nil {
		if tb.Failed() {
			// rapid failed without a sequence breaking the model: its
			// own trouble (say, no valid action), not the target's.
			return res, fmt.Errorf("property: rapid: %s", tb.message())
		}
		res.Verdict = check.Judge(check.P1.ID)
		res.Evidence.Notes = r.notes()
		return res, nil
	}
	res.FailingSeed = failingSeed(tb.message())
	res.Verdict = check.Judge(check.P1.ID, r.best.failed...)
	res.Evidence = r.best.evidence()
	res.Evidence.Notes = r.notes()
	if res.FailingSeed != 0 {
		res.Evidence.Notes = append(res.Evidence.Notes, fmt.Sprintf(
			"the first failing sequence was drawn from seed %d; shrunk from %d to %d steps",
			res.FailingSeed, r.firstSteps, len(r.best.steps)))
		if cfg.Replay != nil {
			res.Evidence.Replay = cfg.Replay(int64(res.FailingSeed), cfg)
		}
	}
	return res, nil
}
