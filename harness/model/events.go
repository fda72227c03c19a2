package model

import "github.com/idemspec/idemspec/harness/check"

// Event is one observation of a recorded property run; exactly one field
// is set. A run is judged by folding its events through a fresh Model,
// so a stored run can be judged again without the target.
type Event struct {
	Answer *Answer
	Lookup *Lookup
	// Oracle is a reading taken after a step; Final one taken after the
	// reconciliation.
	Oracle *Reading
	Final  *Reading
}

// Reading is what the oracle counted for one key's marker.
type Reading struct {
	Key   string
	Count int
	IDs   []string
}

// Check judges a recorded run and returns every violation, in order.
func Check(s Statuses, events []Event) []check.Violation {
	m := New(s)
	var out []check.Violation
	for _, e := range events {
		switch {
		case e.Answer != nil:
			out = append(out, m.Answer(*e.Answer)...)
		case e.Lookup != nil:
			out = append(out, m.Lookup(*e.Lookup)...)
		case e.Oracle != nil:
			out = append(out, m.Oracle(e.Oracle.Key, e.Oracle.Count, e.Oracle.IDs)...)
		case e.Final != nil:
			out = append(out, m.Final(e.Final.Key, e.Final.Count, e.Final.IDs)...)
		}
	}
	return out
}
