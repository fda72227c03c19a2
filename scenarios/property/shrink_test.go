package property

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/internal/fakename"
)

// deterministicActions are the actions whose answers do not ride the
// machine's scheduling: one request at a time, no burst, no restart or
// crash landing inside a request's work.
var deterministicActions = []string{"submit", "submit-lost", "lookup", "variation"}

// TestShrinkReachesTheBugsFewActions: against a mutant whose bug shows
// on every run of its actions, a search drawing only actions whose
// answers do not depend on timing shrinks its counterexample to the two
// or so actions (and the reconciliation) that show the bug, whatever the
// machine's load. The detection matrix runs every action, where a
// burst's or a crash's timing may leave shrinking a longer sequence on a
// busy machine; this is the shrinker's bound held apart from that.
func TestShrinkReachesTheBugsFewActions(t *testing.T) {
	const maxShrunk = 4
	for _, c := range []struct {
		mutant string
		level  check.Level
	}{
		{"replay-drops-location", check.SHOULD}, // a replay without its Location: P2
		{"ignore-payload", check.MUST},          // a reused key's new payload replayed: P1
	} {
		t.Run(c.mutant, func(t *testing.T) {
			target, err := fakename.Load(fakes.TargetPrefix + c.mutant)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { target.Close() })
			settings := harness.DefaultSettings()
			settings.RequestTimeout = time.Minute // no answer is lost to a busy machine
			env, err := harness.New(target, settings)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { env.Close() })
			for _, seed := range []uint64{1, 2, 3} {
				// The shrink time is no bound here: shrinking ends when
				// it stops paying, a count of sequences, not a time.
				cfg := Config{Sequences: 25, Steps: 25, Seed: seed, ShrinkTime: 10 * time.Minute, Crashes: -1}.WithDefaults()
				r := newPass(context.Background(), env, cfg, c.level)
				r.actions = slices.DeleteFunc(r.actions, func(a action) bool { return !slices.Contains(deterministicActions, a.name) })
				if len(r.actions) != len(deterministicActions) {
					t.Fatalf("%d actions available, want %v", len(r.actions), deterministicActions)
				}
				if err := r.drive(); err != nil {
					t.Fatal(err)
				}
				if r.best == nil {
					t.Fatalf("seed %d: no counterexample in %d sequences", seed, r.sequences)
				}
				if n := len(r.best.steps); n > maxShrunk {
					t.Errorf("seed %d: counterexample of %d steps, want 1..%d: %s", seed, n, maxShrunk, r.summary())
				}
			}
		})
	}
}
