package fakes_test

import (
	"testing"
	"time"

	"github.com/idemspec/idemspec/fakes"
)

// Work must last at least the window asked for, on either side of the
// millisecond where it stops sleeping and starts watching the clock (how
// much longer it lasts is the machine's business: bench/ measures it).
func TestWorkLastsAtLeastItsWindow(t *testing.T) {
	for _, d := range []time.Duration{10 * time.Microsecond, 100 * time.Microsecond, 999 * time.Microsecond, 2 * time.Millisecond} {
		start := time.Now()
		fakes.Work(d)
		if got := time.Since(start); got < d {
			t.Errorf("Work(%v) returned after %v", d, got)
		}
	}
}
