package bench_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/history"
)

// burstSizes are the N of issue 10: 10, 100 and 1000 same-key requests.
var burstSizes = []int{10, 100, 1000}

// BenchmarkBurst releases same-key bursts of N requests with the
// harness's Burst, through the clean lane's proxy and straight to the
// target, alternating, and reports the spread of the server's arrival
// stamps (X-Idemspec-Arrival) and of the harness's release writes. The
// reference runs either in the harness's process (as `idemspec run
// --target fake:reference` has it) or in a process of its own (as a real
// target is). One op is one burst on each path.
func BenchmarkBurst(b *testing.B) {
	for _, n := range burstSizes {
		for _, server := range []string{"in-process", "process"} {
			b.Run(fmt.Sprintf("N=%d/server=%s", n, server), func(b *testing.B) {
				var e *harness.Env
				if server == "process" {
					e, _ = processEnv(b)
				} else {
					e = startEnv(b, "fake:reference")
				}
				paths := []*harness.Lane{e.Clean, harness.DirectLane(e.Clean.Upstream)}
				samples := map[string]*burstSamples{}
				for _, l := range paths {
					samples[l.Name] = &burstSamples{}
				}
				b.ResetTimer()
				for i := range b.N {
					for j := range paths {
						l := paths[(i+j)%len(paths)]
						bu, sends := burst(b, e, l, n)
						samples[l.Name].add(bu, sends)
					}
				}
				b.StopTimer()
				for _, l := range paths {
					samples[l.Name].report(b, l.Name)
				}
			})
		}
	}
}

// burst releases one burst of n with a fresh key and marker.
func burst(b *testing.B, e *harness.Env, l *harness.Lane, n int) (history.Burst, []history.Exchange) {
	b.Helper()
	body, err := e.Body(e.NewMarker("bench"), "100")
	if err != nil {
		b.Fatal(err)
	}
	bu, sends, err := e.Burst(context.Background(), &history.History{}, harness.BurstSpec{
		Step: "bench", Lane: l, Key: e.NewKey(), Body: body, Size: n, Timeout: time.Minute,
	})
	if err != nil {
		b.Fatalf("%s lane: %v", l.Name, err)
	}
	return bu, sends
}

// burstSamples collects what the bursts on one path measured.
type burstSamples struct {
	arrival, release []time.Duration
	gaps             []time.Duration // between consecutive arrivals
	sent, answered   int
	ready            int
	unknown          int // bursts whose server did not stamp every arrival
}

func (s *burstSamples) add(bu history.Burst, sends []history.Exchange) {
	s.release = append(s.release, bu.ReleaseSpread)
	if bu.ArrivalKnown {
		s.arrival = append(s.arrival, bu.ArrivalSpread)
		at := make([]time.Time, 0, len(sends))
		for _, x := range sends {
			at = append(at, x.Arrival)
		}
		s.gaps = append(s.gaps, arrivalGaps(at)...)
	} else {
		s.unknown++
	}
	s.ready += bu.Ready
	for _, x := range sends {
		s.sent++
		if x.Outcome == history.OK {
			s.answered++
		}
	}
}

// arrivalGaps are the times between consecutive server arrival stamps:
// how fast the server took the requests in, one after another. It sorts
// at.
func arrivalGaps(at []time.Time) []time.Duration {
	slices.SortFunc(at, func(a, b time.Time) int { return a.Compare(b) })
	gaps := make([]time.Duration, 0, len(at))
	for i := 1; i < len(at); i++ {
		gaps = append(gaps, at[i].Sub(at[i-1]))
	}
	return gaps
}

// spread is the last arrival minus the first.
func spread(at []time.Time) time.Duration {
	first, last := slices.MinFunc(at, time.Time.Compare), slices.MaxFunc(at, time.Time.Compare)
	return last.Sub(first)
}

// report adds the path's metrics: arrival spread p50 and p90, the median
// gap between consecutive arrivals, release spread p50, and the share of
// requests that were answered (a burst of 1000 "works" when every
// request is) and that were ready (the server asked for the body before
// the release).
func (s *burstSamples) report(b *testing.B, path string) {
	b.ReportMetric(micros(quantile(s.arrival, 0.5)), path+"-arrival-p50-us")
	b.ReportMetric(micros(quantile(s.arrival, 0.9)), path+"-arrival-p90-us")
	b.ReportMetric(micros(quantile(s.gaps, 0.5)), path+"-gap-p50-us")
	b.ReportMetric(micros(quantile(s.release, 0.5)), path+"-release-p50-us")
	b.ReportMetric(100*float64(s.answered)/float64(max(1, s.sent)), path+"-answered-%")
	b.ReportMetric(100*float64(s.ready)/float64(max(1, s.sent)), path+"-ready-%")
	if s.unknown > 0 {
		b.ReportMetric(float64(s.unknown), path+"-unstamped-bursts")
	}
}
