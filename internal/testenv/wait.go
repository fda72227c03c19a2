package testenv

import (
	"testing"
	"time"
)

// WaitLimit is how long WaitFor gives a condition: far past what a busy
// machine takes over anything a test awaits (it costs nothing when the
// condition comes true early), so that a verdict does not depend on the
// machine's load.
const WaitLimit = time.Minute

// WaitFor polls cond until it holds, and fails the test, saying what
// never happened, if it does not within WaitLimit.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(WaitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, WaitLimit)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
