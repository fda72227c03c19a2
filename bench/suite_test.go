package bench_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/scenarios"
)

// BenchmarkSuite runs the full default suite (`idemspec run`, every check)
// against the reference, one CLI run per op, and reports the wall time of
// the process, the suite's own time from the report, the slowest check,
// the requests the checks sent, and the process's peak RSS (the built-in fake runs in the same process,
// so its memory is counted too). Every run must pass: a figure from a
// failing run is no figure.
func BenchmarkSuite(b *testing.B) {
	idemspecBinary(b)
	var wall, suite []time.Duration
	var rss []int64
	var requests int
	slowest := map[string]time.Duration{}
	b.ResetTimer()
	for range b.N {
		r := runCLI(b)
		if r.code != 0 {
			b.Fatalf("the reference did not pass (exit %d)\n%s", r.code, r.output)
		}
		wall = append(wall, r.wall)
		suite = append(suite, time.Duration(r.report.Run.DurationMS*float64(time.Millisecond)))
		rss = append(rss, r.maxRSS)
		for _, c := range r.report.Checks {
			requests += len(c.Evidence.History)
			slowest[c.ID] = max(slowest[c.ID], time.Duration(c.DurationMS*float64(time.Millisecond)))
		}
	}
	b.StopTimer()
	b.ReportMetric(quantile(wall, 0.5).Seconds(), "wall-p50-s")
	b.ReportMetric(quantile(suite, 0.5).Seconds(), "suite-p50-s")
	b.ReportMetric(megabytes(maxOf(rss)), "peak-rss-MB")
	b.ReportMetric(float64(requests)/float64(b.N), "requests/run")
	id, d := slowestCheck(slowest)
	b.Logf("slowest check: %s (%v at worst)", id, d)
}

// BenchmarkBurstMemory runs S4 alone with bursts of N requests (every
// round's tight and widened burst) and reports the process's peak RSS and
// wall time: 1000 is the goal's size, 250 shows how the peak grows with
// N. Beside each, taking turns, the same run without a burst (S4 with
// bursts of one request): the ratio of the two peaks is the burst's cost
// in a figure that does not depend on the binary's size. One CLI run of
// each per op.
func BenchmarkBurstMemory(b *testing.B) {
	for _, n := range []int{250, 1000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			idemspecBinary(b)
			var rss, alone []int64
			var wall []time.Duration
			b.ResetTimer()
			for i := range b.N {
				for j := range 2 {
					size := []int{n, 1}[(i+j)%2]
					r := runCLI(b, "--label-filter", scenarios.S4.ID, "--burst", fmt.Sprint(size))
					if r.code != 0 {
						b.Fatalf("S4 with bursts of %d did not pass against the reference (exit %d)\n%s", size, r.code, r.output)
					}
					if size == 1 {
						alone = append(alone, r.maxRSS)
						continue
					}
					rss = append(rss, r.maxRSS)
					wall = append(wall, r.wall)
				}
			}
			b.StopTimer()
			b.ReportMetric(megabytes(maxOf(rss)), "peak-rss-MB")
			b.ReportMetric(megabytes(maxOf(alone)), "no-burst-rss-MB")
			b.ReportMetric(float64(maxOf(rss))/float64(max(1, maxOf(alone))), "rss-ratio")
			b.ReportMetric(quantile(wall, 0.5).Seconds(), "wall-p50-s")
		})
	}
}

func maxOf(xs []int64) int64 {
	var m int64
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

func slowestCheck(ds map[string]time.Duration) (string, time.Duration) {
	var id string
	var worst time.Duration
	for k, d := range ds {
		if d > worst || (d == worst && check.LessID(k, id)) {
			id, worst = k, d
		}
	}
	return id, worst
}
