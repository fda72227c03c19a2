package bench_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness"
)

// BenchmarkBurstFootprint releases one burst of N through the clean
// lane's proxy and one straight to the target (the reference in this
// process), and reports for each the memory the burst added at its
// peak (heap in use plus goroutine stacks, sampled every 2 ms, over a
// collected baseline) and the bytes it allocated. The difference between
// the two paths is what the proxy costs per burst: the figure that
// explains BenchmarkBurstMemory's peak RSS.
func BenchmarkBurstFootprint(b *testing.B) {
	for _, n := range []int{1000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			e := startEnv(b, "fake:reference")
			paths := []*harness.Lane{e.Clean, harness.DirectLane(e.Clean.Upstream)}
			peak, stacks, alloc := map[string][]float64{}, map[string][]float64{}, map[string][]float64{}
			b.ResetTimer()
			for range b.N {
				for _, l := range paths {
					f := footprint(func() { burst(b, e, l, n) })
					peak[l.Name] = append(peak[l.Name], megabytes(int64(f.peak)))
					stacks[l.Name] = append(stacks[l.Name], megabytes(int64(f.stacks)))
					alloc[l.Name] = append(alloc[l.Name], megabytes(int64(f.alloc)))
				}
			}
			b.StopTimer()
			b.ReportMetric(mean(peak[e.Clean.Name])/mean(peak["direct"]), "clean-direct-ratio")
			for _, l := range paths {
				b.ReportMetric(mean(peak[l.Name]), l.Name+"-peak-MB")
				b.ReportMetric(mean(stacks[l.Name]), l.Name+"-stacks-MB")
				b.ReportMetric(mean(alloc[l.Name]), l.Name+"-alloc-MB")
			}
		})
	}
}

// footprintOf is what a burst added to the process's memory at its
// peak: heap in use plus goroutine stacks, and the stacks alone, over
// the collected baseline; and the bytes it allocated.
type footprintOf struct{ peak, stacks, alloc uint64 }

// footprint runs f and samples the memory every 2 ms while it runs.
func footprint(f func()) footprintOf {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	base, baseStacks, allocated := m.HeapInuse+m.StackInuse, m.StackInuse, m.TotalAlloc
	done, sampled := make(chan struct{}), make(chan [2]uint64)
	go func() {
		var top, stacks uint64
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			top, stacks = max(top, m.HeapInuse+m.StackInuse), max(stacks, m.StackInuse)
			select {
			case <-done:
				sampled <- [2]uint64{top, stacks}
				return
			case <-tick.C:
			}
		}
	}()
	f()
	close(done)
	top := <-sampled
	runtime.ReadMemStats(&m)
	return footprintOf{peak: top[0] - min(top[0], base), stacks: top[1] - min(top[1], baseStacks), alloc: m.TotalAlloc - allocated}
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(max(1, len(xs)))
}
