package retry

import (
	"context"
	"math/rand/v2"
	"time"
)

// Clock is the client's only source of time, so tests can run a whole
// operation (timeouts, pauses, the deadline) on simulated time.
type Clock interface {
	Now() time.Time
	// Sleep waits d, or until ctx ends (then it returns ctx's error).
	Sleep(ctx context.Context, d time.Duration) error
	// WithTimeout is context.WithTimeout on this clock: it bounds one
	// request.
	WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc)
}

// Random draws the jitter of the pauses.
type Random interface {
	// Int64N returns a uniform number in [0, n).
	Int64N(n int64) int64
}

// SystemClock is the real clock.
type SystemClock struct{}

func (SystemClock) Now() time.Time { return time.Now() }

func (SystemClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (SystemClock) WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, d)
}

// systemRandom is math/rand/v2's goroutine-safe global source.
type systemRandom struct{}

func (systemRandom) Int64N(n int64) int64 { return rand.Int64N(n) }
