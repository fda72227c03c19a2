package bench_test

import (
	"slices"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/internal/fakename"
)

// startEnv starts a built-in fake and a harness in front of it, both
// closed when the benchmark ends.
func startEnv(b *testing.B, ref string) *harness.Env {
	b.Helper()
	t, err := fakename.Load(ref)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { t.Close() })
	e, err := harness.New(t, harness.DefaultSettings())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	return e
}

// quantile is the q-quantile (0..1) of ds by the nearest-rank method; ds
// is sorted in place.
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	i := int(q*float64(len(ds))+0.5) - 1
	return ds[max(0, min(i, len(ds)-1))]
}

// micros is a duration in microseconds, for metrics.
func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
