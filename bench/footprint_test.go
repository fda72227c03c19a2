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
			peak, alloc := map[string][]float64{}, map[string][]float64{}
			b.ResetTimer()
			for range b.N {
				for _, l := range paths {
					p, a := footprint(func() { burst(b, e, l, n) })
					peak[l.Name] = append(peak[l.Name], megabytes(int64(p)))
					alloc[l.Name] = append(alloc[l.Name], megabytes(int64(a)))
				}
			}
			b.StopTimer()
			for _, l := range paths {
				b.ReportMetric(mean(peak[l.Name]), l.Name+"-peak-MB")
				b.ReportMetric(mean(alloc[l.Name]), l.Name+"-alloc-MB")
			}
		})
	}
}

// footprint runs f and returns the peak of heap in use plus stacks above
// the collected baseline, and the bytes f allocated.
func footprint(f func()) (peak, alloc uint64) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	base, allocated := m.HeapInuse+m.StackInuse, m.TotalAlloc
	done, sampled := make(chan struct{}), make(chan uint64)
	go func() {
		var top uint64
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			top = max(top, m.HeapInuse+m.StackInuse)
			select {
			case <-done:
				sampled <- top
				return
			case <-tick.C:
			}
		}
	}()
	f()
	close(done)
	top := <-sampled
	runtime.ReadMemStats(&m)
	return top - min(top, base), m.TotalAlloc - allocated
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(max(1, len(xs)))
}
