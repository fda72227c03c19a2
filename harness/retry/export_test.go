package retry

import "time"

// Mutants are the deliberately broken clients the property tests must
// catch, by the name of the property that catches each.
var Mutants = map[string]bug{
	"budget":    bugUnbounded,
	"key":       bugFreshKey,
	"deadline":  bugNoDeadline,
	"final":     bugTimeoutIsFinal,
	"reconcile": bugBlindResubmit,
	"journal":   bugLateJournal,
}

// Broken returns a copy of c with the defect b.
func Broken(c Client, b bug) *Client {
	c.bug = b
	return &c
}

// Backoff exposes the pause computation to the tests.
func Backoff(p Policy, n int, r Random) time.Duration { return p.backoff(n, r) }
