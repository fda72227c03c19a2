package harness

import (
	"math"
	"runtime"
	"runtime/debug"
	"sync"
)

// A run with large bursts bounds its memory. A burst of 1000 through the
// lanes, with the built-in fake in the same process, holds about 75 KiB
// a connection at its peak (goroutine stacks, the proxy's links, the
// fake's buffers). GOGC alone lets the heap grow to twice what is live,
// stacks included, before the collector runs: about 185 MB of RSS for
// `idemspec run --burst 1000`. A soft limit of what the process held
// when the Env started plus connectionMemory for each connection of a
// burst makes it collect earlier, which keeps the peak under 150 MB. The
// limit paces the collector and nothing else: a burst that needs more
// still gets it.
const (
	// boundFrom is the burst size from which an Env bounds memory.
	boundFrom = 100
	// connectionMemory is what the bound allows each burst connection.
	connectionMemory = 96 << 10
)

// bounds is the process's soft memory limit while Envs hold one: the
// largest they asked for, and the limit before the first (GOMEMLIMIT's,
// or none).
var bounds struct {
	sync.Mutex
	held   []int64
	before int64
}

// boundMemory sets the soft memory limit for an Env whose bursts hold
// burst connections, unless the user set one (GOMEMLIMIT), and returns
// what lifts it.
func boundMemory(burst int) (lift func()) {
	if burst < boundFrom {
		return func() {}
	}
	bounds.Lock()
	defer bounds.Unlock()
	if len(bounds.held) == 0 {
		bounds.before = debug.SetMemoryLimit(-1)
	}
	if bounds.before != math.MaxInt64 {
		return func() {} // GOMEMLIMIT: the user's choice
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	limit := int64(m.Sys-m.HeapReleased) + int64(burst)*connectionMemory
	bounds.held = append(bounds.held, limit)
	debug.SetMemoryLimit(maxOf(bounds.held))
	return func() {
		bounds.Lock()
		defer bounds.Unlock()
		for i, l := range bounds.held {
			if l == limit {
				bounds.held = append(bounds.held[:i], bounds.held[i+1:]...)
				break
			}
		}
		if len(bounds.held) == 0 {
			debug.SetMemoryLimit(bounds.before)
			return
		}
		debug.SetMemoryLimit(maxOf(bounds.held))
	}
}

func maxOf(xs []int64) int64 {
	m := xs[0]
	for _, x := range xs[1:] {
		m = max(m, x)
	}
	return m
}
