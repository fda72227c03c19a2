package check

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// Check is one check of the catalogue, whole, of any kind: its entry
// (stable ID, level, clause, a title that reads "should ...", group),
// whom it concerns, what it needs, what it will send, and its run, which
// ends in a pure judge. It is generic over what the kind differs in:
//
//   - S, the subject its run drives: the server's Env, one trial of a
//     client command or a job, one trial of an MCP tool;
//   - T, what its skip rule reads before anything is sent: the target
//     file, or an MCP tool as tools/list declared it on its server;
//   - P, what its plan reads: the run's settings and the target.
//
// Each check lives in a file of its own; the Ginkgo specs, the dry-run
// plan, the skip reasons, `idemspec list` and docs/CONFORMANCE.md are
// made from the one registry Define fills.
type Check[S, T, P any] struct {
	ID, Title, Clause, Group string
	Level                    Level
	// Why and Fix are written for the person who owns the API or the
	// agent: the incident the check prevents, in one sentence, and the
	// pattern that passes. Stimulus is what idemspec does to the subject
	// and Proof the evidence a verdict rests on; `idemspec explain`
	// prints all four, the reports show Why and Fix under a finding.
	Why, Fix, Stimulus, Proof string
	// Concerns says whether the check judges t at all (an MCP tool
	// declared read-only is not judged as a keyed create); nil: every
	// one. A check that does not concern t has no verdict on it.
	Concerns func(t T) bool
	// Needs says why the check cannot run against t ("": it can); nil
	// means it always can. The run skips with this reason, and the dry
	// run says it, from this one rule.
	Needs func(t T) string
	// Plan is what the check will send against a conforming target, from
	// the same constants its Run uses; nil: the kind has no plan of its
	// own (a client trial is what the client command sends).
	Plan func(p P) Plan
	// Run drives the subject, records what happened and returns the
	// verdict of the check's pure judge.
	Run func(ctx context.Context, s S) (Verdict, error)
	// Judge is the verdict of a check judged from t alone, with nothing
	// sent (an MCP tool's declaration); a check has a Run or a Judge.
	Judge func(t T) Verdict
	// Timeout bounds one run (0: the runner's default).
	Timeout time.Duration
}

// Plan is what one check will send, without sending anything: what the
// dry run prints. Requests is the usual count against a conforming
// target (an MCP check's tool and oracle calls); MaxRequests bounds it
// (the in-flight polls and commit waits are bounded by count and time),
// and a budget below it may end the check with ERROR.
type Plan struct {
	Requests    int
	MaxRequests int
	Faults      []string
	Restarts    int
	// Markers and MaxMarkers are how many markers the check makes,
	// usually and at most (0 counts as one): an operation with setup
	// sends its setup requests once per marker.
	Markers, MaxMarkers int
	// Note says what the counts leave out (a property's shrinking).
	Note string
}

// Entry is the check's catalogue entry, as reports carry it.
func (c *Check[S, T, P]) Entry() Entry {
	return Entry{ID: c.ID, Title: c.Title, Level: c.Level, Clause: c.Clause, Group: c.Group,
		Why: c.Why, Fix: c.Fix, Stimulus: c.Stimulus, Proof: c.Proof}
}

// Concerned reports whether the check judges t.
func (c *Check[S, T, P]) Concerned(t T) bool { return c.Concerns == nil || c.Concerns(t) }

// Skips is the check's skip reason for t, "" when it can run.
func (c *Check[S, T, P]) Skips(t T) string {
	if c.Needs == nil {
		return ""
	}
	return c.Needs(t)
}

// checks is the one registry: every check of every kind, in the order
// the files define them.
var checks []any

// Define registers c, and its entry in the catalogue of verdicts. It
// panics on a duplicate or malformed check: a programming error the
// first test run catches.
func Define[S, T, P any](c Check[S, T, P]) *Check[S, T, P] {
	if (c.Run == nil) == (c.Judge == nil) {
		panic(fmt.Sprintf("check %s: needs a Run or a Judge", c.ID))
	}
	Register(c.Entry())
	mu.Lock()
	defer mu.Unlock()
	checks = append(checks, &c)
	return &c
}

// Defined lists the entries of every check Define registered, of every
// kind, in ID order: the catalogue without the entries registered
// alone (a test's throwaway checks).
func Defined() []Entry {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]Entry, 0, len(checks))
	for _, c := range checks {
		out = append(out, c.(interface{ Entry() Entry }).Entry())
	}
	slices.SortFunc(out, func(a, b Entry) int { return CompareID(a.ID, b.ID) })
	return out
}

// Checks lists the registry's checks of one kind in ID order (S1 < S2 <
// S10 < T1).
func Checks[S, T, P any]() []*Check[S, T, P] {
	mu.RLock()
	defer mu.RUnlock()
	var out []*Check[S, T, P]
	for _, c := range checks {
		if c, ok := c.(*Check[S, T, P]); ok {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b *Check[S, T, P]) int { return CompareID(a.ID, b.ID) })
	return out
}

// Find finds a check of one kind by ID.
func Find[S, T, P any](id string) (*Check[S, T, P], bool) {
	all := Checks[S, T, P]()
	i := slices.IndexFunc(all, func(c *Check[S, T, P]) bool { return c.ID == id })
	if i < 0 {
		return nil, false
	}
	return all[i], true
}
