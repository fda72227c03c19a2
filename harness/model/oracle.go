package model

import "fmt"

// Oracle judges what the oracle counted for the key's marker; ids is nil
// when the oracle only counts. A twin's resource is not the key's.
func (m *Model) Oracle(name string, count int, ids []string) []Finding {
	k := m.key(name)
	count, ids = m.attributed(k, count, ids)
	return m.oracle(k, count, ids)
}

func (m *Model) oracle(k *key, count int, ids []string) []Finding {
	switch {
	case count > 1:
		return []Finding{must(k.violation(0, "more than one resource", "at most 1", counted(count, ids)))}
	case count == 0 && k.exists:
		return []Finding{must(k.violation(0, "the acknowledged resource is gone", "1 ("+k.id+")", "0"))}
	case count == 0:
		// Unbound, holding a failure, or a request is still in flight.
		return nil
	}
	if len(k.bound) == 0 {
		return []Finding{must(k.violation(0, "a resource exists though no request with the key can have taken effect",
			"0", counted(count, ids)))}
	}
	k.free, k.exists = false, true
	k.failed = map[string]int{}
	if len(ids) != 1 {
		return nil
	}
	if o := m.owner(k, ids[0]); o != "" {
		return []Finding{must(k.violation(0, "the oracle lists another key's resource under this key's marker", "a resource of its own", ids[0]+", the resource of "+o))}
	}
	if k.id != "" && ids[0] != k.id {
		return []Finding{must(k.violation(0, "the oracle lists another resource than the key's", k.id+" ("+k.idFrom+")", ids[0]))}
	}
	if k.id == "" {
		k.id, k.idFrom = ids[0], "listed by the oracle"
	}
	return nil
}

// Pending is a key whose binding is still unknown, with the payload a
// reconciliation resends to settle it.
type Pending struct{ Key, Payload string }

// Unsettled lists the keys a lost attempt may or may not have bound.
func (m *Model) Unsettled() []Pending {
	var out []Pending
	for _, name := range m.Keys() {
		if k := m.keys[name]; k.free && len(k.bound) > 0 {
			out = append(out, Pending{Key: name, Payload: k.lastLost})
		}
	}
	return out
}

// Unseen lists the keys found bound (a request with the key took effect
// or is still running, so the key must end with one resource) whose
// resource no answer acknowledged and no reading listed yet, each with
// the payload that bound it: the reconciliation resends it, which waits
// out a request still running, before the final count.
func (m *Model) Unseen() []Pending {
	var out []Pending
	for _, name := range m.Keys() {
		k := m.keys[name]
		if k.free || k.exists || len(k.failed) > 0 || len(k.bound) != 1 {
			continue
		}
		for payload := range k.bound {
			out = append(out, Pending{Key: name, Payload: payload})
		}
	}
	return out
}

// Final judges the oracle's count for a key after the reconciliation: a
// key acknowledged or found has exactly one resource, a key no request
// can have bound has none, and a key still open may have either.
func (m *Model) Final(name string, count int, ids []string) []Finding {
	k := m.key(name)
	count, ids = m.attributed(k, count, ids)
	if fs := m.oracle(k, count, ids); len(fs) > 0 {
		return fs
	}
	want := m.Settled(name)
	if want < 0 || count == want {
		return nil
	}
	return []Finding{must(m.key(name).violation(0, "after reconciliation the oracle's count differs from what was acknowledged or found",
		fmt.Sprint(want), counted(count, ids)))}
}

// Settled is how many resources the key must have once every attempt is
// settled: 1 if it was acknowledged or found bound, 0 if nothing can have
// bound it (or it holds a stored failure), -1 while it is open.
func (m *Model) Settled(name string) int {
	k := m.key(name)
	switch {
	case k.exists:
		return 1
	case len(k.bound) == 0:
		return 0
	case !k.free && len(k.failed) == 0:
		return 1
	}
	return -1
}
