package fakes

import (
	"runtime"
	"time"
)

// Work stands for a handler's work time d (Options.Delay): the window in
// which concurrent duplicates meet an in-flight record or, in a mutant,
// race.
//
// time.Sleep cannot make a window narrower than a millisecond: a Go
// runtime with nothing else to do wakes a sleeper only on its next look at
// the timers, which on Linux comes about a millisecond late, so a "10 µs"
// window would be 1 ms wide and a detection figure for it a lie (bench/
// BenchmarkDetection measures both). Below a millisecond
// the handler watches the clock instead, yielding its core between looks.
func Work(d time.Duration) {
	if d >= time.Millisecond {
		time.Sleep(d)
		return
	}
	for end := time.Now().Add(d); time.Now().Before(end); {
		runtime.Gosched()
	}
}
