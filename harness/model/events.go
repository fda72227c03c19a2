package model

import "github.com/idemspec/idemspec/harness/history"

// Event is one observation of a recorded property run; exactly one field
// is set. A run is judged by folding its events through a fresh Model,
// so a stored run can be judged again without the target.
type Event struct {
	Answer    *Answer
	Lookup    *Lookup
	Keyless   *history.Exchange
	OddKey    *OddKey
	Variation *Variation
	// Oracle is a reading taken after a step; Final one taken after the
	// reconciliation.
	Oracle *Reading
	Final  *Reading
	// Twin declares a second tenant's twin of a pool key (Model.Twin).
	Twin *Twin
	// Restart is a restart of the target (Model.Restarted).
	Restart bool
}

// Twin is a pool key's twin: Name sends the key Of's key and bytes as
// another tenant, so both carry one marker.
type Twin struct{ Of, Name string }

// Variation is a variation of a request sent after the original succeeded.
type Variation struct {
	Key, Kind string
	X         history.Exchange
}

// Reading is what the oracle counted for one key's marker (or NoKey's,
// or OddKeys').
type Reading struct {
	Key   string
	Count int
	IDs   []string
}

// Check judges a recorded run and returns every finding, in order.
func Check(c Convention, events []Event) []Finding {
	m := New(c)
	var out []Finding
	for _, e := range events {
		switch {
		case e.Twin != nil:
			m.Twin(e.Twin.Of, e.Twin.Name)
		case e.Restart:
			m.Restarted()
		case e.Answer != nil:
			out = append(out, m.Answer(*e.Answer)...)
		case e.Lookup != nil:
			out = append(out, m.Lookup(*e.Lookup)...)
		case e.Keyless != nil:
			out = append(out, m.Keyless(*e.Keyless)...)
		case e.OddKey != nil:
			out = append(out, m.OddKey(*e.OddKey)...)
		case e.Variation != nil:
			out = append(out, m.Variation(e.Variation.Key, e.Variation.Kind, e.Variation.X)...)
		case e.Oracle != nil:
			out = append(out, m.Read(*e.Oracle, false)...)
		case e.Final != nil:
			out = append(out, m.Read(*e.Final, true)...)
		}
	}
	return out
}

// Read judges an oracle reading taken after a step, or after the
// reconciliation (final): a pool key's by Oracle or Final, the keyless
// and malformed-key markers by their own rules.
func (m *Model) Read(r Reading, final bool) []Finding {
	switch {
	case r.Key == NoKey:
		return m.KeylessOracle(r.Count, r.IDs)
	case r.Key == OddKeys:
		return m.OddOracle(r.Count, r.IDs)
	case final:
		return m.Final(r.Key, r.Count, r.IDs)
	}
	return m.Oracle(r.Key, r.Count, r.IDs)
}
