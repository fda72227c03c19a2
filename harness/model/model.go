// Package model is what a correct idempotent create endpoint may do,
// kept as the set of worlds each key may be in, and the checker that
// holds observed answers, look-ups and oracle readings against it.
//
// A key is either unbound (no request with it has taken effect) or bound
// to one payload and one resource. An attempt whose answer was lost may or
// may not have taken effect, so the model keeps both worlds, as Jepsen
// does with :info operations, until an answer, a look-up or the oracle
// rules one out. The model is pure: it never sends, sleeps or reads a
// clock; the property in package scenarios feeds it what it observed.
package model

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
)

// Statuses are the answers the target's profile gives for a reused key.
type Statuses struct {
	Mismatch int // the same key with another payload
	InFlight int // the same key while a request with it is still running
}

// Model tracks the keys of one property run.
type Model struct {
	statuses Statuses
	keys     map[string]*key
}

// key is what may be true of one key.
type key struct {
	name string
	// free: the key may still be unbound.
	free bool
	// bound holds the payloads the key may be bound to.
	bound map[string]bool
	// id is the resource every success with the key must name, once an
	// answer or the oracle told it; idFrom says which.
	id, idFrom string
	// exists: a resource for the key certainly exists (a success was
	// acknowledged or the oracle listed it).
	exists bool
	// sent: some request with the key may have reached the server.
	sent bool
	// lastLost is the payload of the latest attempt whose answer was
	// lost, the one a reconciliation resends.
	lastLost string
}

// New starts a model in which every key is unbound.
func New(s Statuses) *Model { return &Model{statuses: s, keys: map[string]*key{}} }

func (m *Model) key(name string) *key {
	k, ok := m.keys[name]
	if !ok {
		k = &key{name: name, free: true, bound: map[string]bool{}}
		m.keys[name] = k
	}
	return k
}

// Keys names every key the model has seen, sorted.
func (m *Model) Keys() []string { return slices.Sorted(maps.Keys(m.keys)) }

// Answer is one attempt's result as the client saw it.
type Answer struct {
	Key     string
	Payload string
	Outcome history.Outcome
	Status  int
	ID      string
	// Settled is set when the client waited out in-flight answers before
	// this one, so an in-flight status here means the key is stuck.
	Settled bool
	Seq     int
}

// Answer judges one attempt and narrows the worlds to those it allows.
func (m *Model) Answer(a Answer) []check.Violation {
	k := m.key(a.Key)
	switch a.Outcome {
	case history.Failed:
		return nil // it never reached the server
	case history.MaybeApplied:
		k.sent, k.lastLost = true, a.Payload
		if k.free {
			// Either it took effect and bound the key, or it did not.
			k.bound[a.Payload] = true
		}
		return nil
	}
	k.sent = true
	switch {
	case a.Status >= 200 && a.Status < 300:
		return k.succeeded(a, m.statuses)
	case a.Status == m.statuses.InFlight:
		if a.Settled {
			return []check.Violation{k.violation(a.Seq, "still in flight after the in-progress timeout",
				"an answer once the request in flight finishes or is abandoned", fmt.Sprint(a.Status))}
		}
		return nil
	case a.Status == m.statuses.Mismatch:
		return k.rejected(a)
	}
	return []check.Violation{k.violation(a.Seq, "an answer the profile does not allow",
		m.Expect(a.Key, a.Payload), fmt.Sprint(a.Status))}
}

func (k *key) succeeded(a Answer, s Statuses) []check.Violation {
	if !k.free && !k.bound[a.Payload] {
		return []check.Violation{k.violation(a.Seq, "a reused key with another payload was accepted",
			fmt.Sprintf("%d, nothing created (%s is bound to payload %s)", s.Mismatch, k.name, k.boundList()),
			fmt.Sprintf("%d %s", a.Status, a.ID))}
	}
	if a.ID == "" {
		return []check.Violation{k.violation(a.Seq, "a success carried no resource id", "an id", fmt.Sprint(a.Status))}
	}
	if k.id != "" && a.ID != k.id {
		return []check.Violation{k.violation(a.Seq, "a success carried another resource id than the key's",
			k.id+" ("+k.idFrom+")", a.ID)}
	}
	k.free, k.exists = false, true
	k.bound = map[string]bool{a.Payload: true}
	if k.id == "" {
		k.id, k.idFrom = a.ID, fmt.Sprintf("acknowledged in #%d", a.Seq)
	}
	return nil
}

func (k *key) rejected(a Answer) []check.Violation {
	other := false
	for p := range k.bound {
		other = other || p != a.Payload
	}
	if !other {
		return []check.Violation{k.violation(a.Seq, "rejected as a mismatch, but the key can only be bound to this payload",
			"2xx", fmt.Sprint(a.Status))}
	}
	// The key is bound, and not to this payload.
	k.free = false
	delete(k.bound, a.Payload)
	return nil
}

// Expect says what a correct server may answer now to payload under key.
func (m *Model) Expect(name, payload string) string {
	k := m.key(name)
	success := k.free || k.bound[payload]
	var others []string
	for _, p := range slices.Sorted(maps.Keys(k.bound)) {
		if p != payload {
			others = append(others, p)
		}
	}
	ok := "2xx"
	if k.id != "" {
		ok += " with id " + k.id
	} else if k.free && len(k.bound) == 0 {
		ok += " creating the key's one resource"
	}
	reject := fmt.Sprintf("%d, nothing created", m.statuses.Mismatch)
	switch {
	case success && len(others) == 0:
		return ok
	case success:
		return fmt.Sprintf("%s, or %d if a lost attempt bound the key to payload %s", ok, m.statuses.Mismatch, strings.Join(others, " or "))
	case len(others) > 0:
		return fmt.Sprintf("%s (%s is bound to payload %s)", reject, name, strings.Join(others, " or "))
	}
	return "no success: nothing can bind " + name
}

// Oracle judges what the oracle counted for the key's marker; ids is nil
// when the oracle only counts.
func (m *Model) Oracle(name string, count int, ids []string) []check.Violation {
	k := m.key(name)
	switch {
	case count > 1:
		return []check.Violation{k.violation(0, "more than one resource", "at most 1", counted(count, ids))}
	case count == 0 && k.exists:
		return []check.Violation{k.violation(0, "the acknowledged resource is gone", "1 ("+k.id+")", "0")}
	case count == 0:
		// Unbound, or a request with the key is still in flight.
		return nil
	}
	if k.free && len(k.bound) == 0 {
		return []check.Violation{k.violation(0, "a resource exists though no request with the key can have taken effect",
			"0", counted(count, ids))}
	}
	k.free, k.exists = false, true
	if len(ids) != 1 {
		return nil
	}
	if k.id != "" && ids[0] != k.id {
		return []check.Violation{k.violation(0, "the oracle lists another resource than the key's", k.id+" ("+k.idFrom+")", ids[0])}
	}
	if k.id == "" {
		k.id, k.idFrom = ids[0], "listed by the oracle"
	}
	return nil
}

// Lookup is the answer to a look-up of one key.
type Lookup struct {
	Key     string
	Outcome history.Outcome
	Status  int
	Seq     int
}

// Lookup judges a look-up: 2xx means the key is known (bound or in
// flight), 404 that it is not.
func (m *Model) Lookup(l Lookup) []check.Violation {
	k := m.key(l.Key)
	if l.Outcome != history.OK {
		return nil
	}
	switch {
	case l.Status >= 200 && l.Status < 300:
		if !k.sent {
			return []check.Violation{k.violation(l.Seq, "the look-up knows a key that was never sent", "404", fmt.Sprint(l.Status))}
		}
		k.free = false
	case l.Status == 404:
		if k.exists {
			return []check.Violation{k.violation(l.Seq, "the look-up does not know a key whose resource exists", "2xx", "404")}
		}
	default:
		return []check.Violation{k.violation(l.Seq, "the look-up answered with an unexpected status", "2xx or 404", fmt.Sprint(l.Status))}
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

// Final judges the oracle's count for a key after the reconciliation: a
// key acknowledged or found has exactly one resource, a key no request
// can have bound has none, and a key still unsettled may have either.
func (m *Model) Final(name string, count int, ids []string) []check.Violation {
	k := m.key(name)
	if vs := m.Oracle(name, count, ids); len(vs) > 0 {
		return vs
	}
	want := m.Settled(name)
	if want < 0 || count == want {
		return nil
	}
	return []check.Violation{k.violation(0, "after reconciliation the oracle's count differs from what was acknowledged or found",
		fmt.Sprint(want), counted(count, ids))}
}

// Settled is how many resources the key must have once every attempt is
// settled: 1 if it was acknowledged or found, 0 if nothing can have bound
// it, -1 while a lost attempt leaves it open.
func (m *Model) Settled(name string) int {
	k := m.key(name)
	switch {
	case !k.free:
		return 1
	case len(k.bound) == 0:
		return 0
	}
	return -1
}

func (k *key) violation(seq int, what, expected, observed string) check.Violation {
	v := check.Violation{What: k.name + ": " + what, Expected: expected, Observed: observed}
	if seq > 0 {
		v.Seqs = []int{seq}
	}
	return v
}

func (k *key) boundList() string {
	return strings.Join(slices.Sorted(maps.Keys(k.bound)), " or ")
}

func counted(count int, ids []string) string {
	if len(ids) == 0 {
		return fmt.Sprint(count)
	}
	return fmt.Sprintf("%d (%s)", count, strings.Join(ids, ", "))
}
