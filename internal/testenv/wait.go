package testenv

import (
	"testing"
	"time"
)

// WaitFor polls cond until it holds, and fails the test if it does not
// within limit. Give a limit far past what a busy machine takes (it
// costs nothing when cond comes true early): the verdict must not
// depend on the machine's load.
func WaitFor(t testing.TB, limit time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %s", limit)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
