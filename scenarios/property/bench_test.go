package property_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/scenarios/property"
)

// BenchmarkFirstCounterexample measures, per mutant, how long the
// properties take to find its first counterexample at default settings:
// P1's or P2's, whichever the mutant's entry lists (shrinking is cut
// short: it is not part of the measure). Each op is one search from a new
// seed; a search that misses the mutant fails the benchmark.
//
//	go test ./scenarios -run '^$' -bench FirstCounterexample
func BenchmarkFirstCounterexample(b *testing.B) {
	for _, m := range fakes.MutantsOf(fakes.OfServer) {
		name, catches := m.Name, m.CaughtBy()
		if len(catches) == 0 {
			// Right on one instance: two sharing a database race.
			name, catches = m.Name+"?instances=2", m.Multi
		}
		b.Run(m.Name, func(b *testing.B) {
			env := property.EnvOf(b, name)
			cfg := property.DefaultConfig()
			cfg.ShrinkTime = time.Millisecond
			var found time.Duration
			var sequences int
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				cfg.Seed = uint64(time.Now().UnixNano())
				both, err := property.Search(context.Background(), env, cfg)
				if err != nil {
					b.Fatal(err)
				}
				res := both.Should
				if slices.Contains(catches, "P1") {
					res = both.Must
				}
				if res.Verdict.Status == check.PASS {
					b.Fatalf("seed %d: %s passed against %s", cfg.Seed, res.Verdict.Check, m.Name)
				}
				found += res.FirstCounterexample
				sequences += res.FirstSequence
			}
			b.ReportMetric(float64(found.Milliseconds())/float64(b.N), "ms/counterexample")
			b.ReportMetric(float64(sequences)/float64(b.N), "sequences/counterexample")
		})
	}
}
