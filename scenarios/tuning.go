package scenarios

import (
	"time"

	"github.com/idemspec/idemspec/harness/retry"
)

// Tuning is what single checks are tuned by, beside the engine's
// Settings: how often S1 repeats its request, and the policy of the
// reference retrying client that S6 sets against the target.
type Tuning struct {
	// Repeats is how many times S1 sends the same request.
	Repeats int
	// Retry is the reference retrying client's policy while S6 holds a
	// fault on the faulty lane. Every attempt is going to time out, so
	// attempts are short.
	Retry retry.Policy
}

// DefaultTuning is what the suite uses unless told otherwise.
func DefaultTuning() Tuning {
	return Tuning{
		Repeats: 5,
		Retry: retry.Policy{
			MaxAttempts: 3,
			// Under S6's faults every attempt times out: the timeout is
			// the stimulus, and the suite waits it out six times. A
			// create that does not reach the target in time only makes
			// S6 try its operation again (landingTries).
			AttemptTimeout: 150 * time.Millisecond,
			Deadline:       5 * time.Second,
			BaseBackoff:    20 * time.Millisecond,
			MaxBackoff:     200 * time.Millisecond,
		},
	}
}
