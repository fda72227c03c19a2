package testenv

import (
	"context"
	"testing"
	"time"
)

// UntilDeadline bounds a build a test makes by the test binary's own
// deadline (go test -timeout), a minute short of it so the test fails
// with the build's output rather than the binary's panic. A build's time
// is the machine's load and the build cache's state, not the code under
// test: a fixed bound judged those (two `make test` at once on fresh
// clones, load 78, cold caches, had cross-compiles killed at 10
// minutes).
func UntilDeadline(t testing.TB) (context.Context, context.CancelFunc) {
	type deadliner interface{ Deadline() (time.Time, bool) }
	if d, ok := t.(deadliner); ok {
		if deadline, ok := d.Deadline(); ok {
			return context.WithDeadline(context.Background(), deadline.Add(-time.Minute))
		}
	}
	return context.WithCancel(context.Background())
}
