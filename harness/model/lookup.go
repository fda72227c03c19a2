package model

import (
	"fmt"

	"github.com/idemspec/idemspec/harness/history"
)

// Lookup is the answer to a look-up of one key.
type Lookup struct {
	Key string
	X   history.Exchange
}

// Lookup judges a look-up: 2xx means the key is known (bound, holding a
// failure, or in flight), 404 that it is not.
func (m *Model) Lookup(l Lookup) []Finding {
	k, x := m.key(l.Key), l.X
	if x.Outcome != history.OK {
		return nil
	}
	switch {
	case x.Is2xx():
		if !k.sent {
			return []Finding{must(k.violation(x.Seq, "the look-up knows a key that was never sent", "404", fmt.Sprint(x.Status)))}
		}
		k.free = false
	case x.Status == 404:
		if k.exists {
			return []Finding{must(k.violation(x.Seq, "the look-up does not know a key whose resource exists", "2xx", "404"))}
		}
	default:
		return []Finding{must(k.violation(x.Seq, "the look-up answered with an unexpected status", "2xx or 404", fmt.Sprint(x.Status)))}
	}
	return nil
}

// ExpectLookup says what a correct look-up of the key may answer now.
func (m *Model) ExpectLookup(name string) string {
	k := m.key(name)
	switch {
	case k.exists || !k.free:
		return "2xx: the key is known"
	case !k.sent:
		return "404: the key was never sent"
	}
	return "2xx or 404: a lost attempt may have bound the key"
}
