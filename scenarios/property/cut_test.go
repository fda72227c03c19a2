package property_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/scenarios/property"
)

// TestSearchCutShortNeverPasses: a search whose context ends while it
// runs (an interrupt, the run's time limit) has not searched: P1 and P2
// are never PASS then, wherever the cut lands. The reference keeps
// every rule, so a whole search would pass both.
func TestSearchCutShortNeverPasses(t *testing.T) {
	env := property.EnvOf(t, "reference")
	for _, at := range []int{1, 2, 7, 30} {
		t.Run(fmt.Sprintf("cut at report %d", at), func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			n := 0
			cfg := property.Config{Sequences: 5, Steps: 10, Seed: 11, ShrinkTime: time.Second, Crashes: -1,
				Progress: func(property.Progress) {
					if n++; n == at {
						cancel(fmt.Errorf("interrupted by SIGTERM"))
					}
				}}
			res, err := property.Search(ctx, env, cfg)
			if n < at {
				t.Skipf("the search ended after %d progress reports, before the cut", n)
			}
			if err == nil && (res.Must.Verdict.Status == check.PASS || res.Should.Verdict.Status == check.PASS) {
				t.Errorf("cut at report %d of %d: P1 %s, P2 %s, no error: a search cut short passed", at, n, res.Must.Verdict.Status, res.Should.Verdict.Status)
			}
		})
	}
}
