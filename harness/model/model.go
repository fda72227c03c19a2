package model

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/idemspec/idemspec/harness/check"
)

// Convention is what the target's profile says it answers, and which
// answer fields may differ between replays.
type Convention struct {
	Mismatch   int // the same key with another payload
	InFlight   int // the same key while a request with it is still running
	MissingKey int // a create without the required key
	Volatile   []string
}

// Finding is a rule an observation broke, and how strong the rule is.
type Finding struct {
	Level check.Level
	check.Violation
}

// Model tracks the keys of one property run, and the requests sent
// outside them (without a key, with a malformed one).
type Model struct {
	conv Convention
	keys map[string]*key
	// oddIDs are the resources malformed keys were accepted with.
	oddIDs map[string]bool
	// oddUnanswered counts the malformed-key creates whose answer did
	// not come in time: each may have been accepted.
	oddUnanswered int
}

// key is what may be true of one key.
type key struct {
	name string
	// free: the key may still be unbound.
	free bool
	// bound holds the payloads whose resource the key may hold.
	bound map[string]bool
	// failed holds the payloads whose stored failure (its status) the
	// key may hold: an attempt failed before taking effect, and the
	// target may have stored the failure for replay, or kept nothing.
	failed map[string]int
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
	// original is the first success seen: every replay repeats it.
	original *answered
	// refusable: the key is another tenant's use of a pool key's name
	// (same key, same bytes), which a server may refuse outright.
	refusable bool
	// twin is the key that shares this key's marker (see Model.Twin).
	twin string
	// durable: the key was answered with a success before the target
	// restarted (see Model.Restarted).
	durable bool
	// abandoned holds the payloads whose attempt may have been in flight,
	// without having taken effect, when the target restarted: its claim
	// may be abandoned, so a retry may take it over, fail, and free the
	// key (see Answer), though a refusal or a look-up found it held.
	abandoned map[string]bool
}

// New starts a model in which every key is unbound.
func New(c Convention) *Model {
	return &Model{conv: c, keys: map[string]*key{}, oddIDs: map[string]bool{}}
}

func (m *Model) key(name string) *key {
	k, ok := m.keys[name]
	if !ok {
		k = &key{name: name, free: true, bound: map[string]bool{}, failed: map[string]int{}, abandoned: map[string]bool{}}
		m.keys[name] = k
	}
	return k
}

// Twin declares name as the twin of the pool key of: of's key and bytes
// sent as a second tenant. A correct server gives the twin its own
// resource or refuses it (any 4xx while it holds no resource), never
// of's resource.
//
// Both carry one marker, and an oracle may read a view that is not
// scoped by tenant (an admin or service view lists every tenant's
// resources), so a reading for either may list the other's resource too.
// Each resource is attributed to the key whose answers or readings named
// it: a reading for one drops the id its twin holds (see attributed).
func (m *Model) Twin(of, name string) {
	k := m.key(name)
	k.refusable, k.twin = true, of
	m.key(of).twin = name
}

// Restarted records that the target restarted (gracefully or after a
// crash). Every key already answered with a success had its record stored
// before that answer, and no request with it can be in flight across a
// restart: from now on a settled "in flight" answer for it means the
// record was lost, and is judged at once (Durable), not waited out.
//
// An attempt whose answer was lost, with no resource shown for its key,
// may have been cut before it took effect (a crash, a restart that does
// not drain): its claim is abandoned until a retry takes it over.
func (m *Model) Restarted() {
	for _, k := range m.keys {
		if k.original != nil {
			k.durable = true
		}
		if !k.exists {
			for p := range k.bound {
				k.abandoned[p] = true
			}
		}
	}
}

// Durable says whether the key was answered with a success before the
// target restarted: an "in flight" answer for it is final.
func (m *Model) Durable(name string) bool { return m.key(name).durable }

// attributed is a reading for k without its twin's resource: the id the
// twin's answers (or its own readings) named. A twin that may hold a
// resource no answer named yet (its answer was lost, and the request may
// still be running when the reading lands) may own one id of the reading
// that is not k's own: one such id is set aside, so only a second one
// counts against k. Counts without ids cannot be attributed; the
// properties draw twins only for oracles that list.
func (m *Model) attributed(k *key, count int, ids []string) (int, []string) {
	o, ok := m.keys[k.twin]
	if !ok || ids == nil {
		return count, ids
	}
	if o.id == "" {
		if len(o.bound) == 0 {
			return count, ids // the twin cannot hold a resource
		}
		i := slices.IndexFunc(ids, func(id string) bool { return id != k.id })
		if i < 0 {
			return count, ids
		}
		return count - 1, slices.Delete(slices.Clone(ids), i, i+1)
	}
	out := slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return id == o.id && id != k.id })
	return count - (len(ids) - len(out)), out
}

// owner names the key other than k whose resource id is id ("": none).
// Each key creates its own resource, so no two keys share one.
func (m *Model) owner(k *key, id string) string {
	for _, name := range m.Keys() {
		if o := m.keys[name]; o != k && o.id == id {
			return name
		}
	}
	return ""
}

// Keys names every key the model has seen, sorted.
func (m *Model) Keys() []string { return slices.Sorted(maps.Keys(m.keys)) }

// MayMismatch says whether the key may be bound to another payload than
// payload, so that the profile's mismatch status is a possible answer.
func (m *Model) MayMismatch(name, payload string) bool { return m.key(name).others(payload) }

// WillCreate says whether a correct server certainly creates the key's
// resource for payload now, given time: the key is unbound but for
// attempts with this very payload, and holds no failure.
func (m *Model) WillCreate(name, payload string) bool {
	k := m.key(name)
	return k.free && !k.exists && len(k.failed) == 0 && !k.others(payload)
}

// others says whether the key may hold another payload than p.
func (k *key) others(p string) bool {
	for q := range k.bound {
		if q != p {
			return true
		}
	}
	for q := range k.failed {
		if q != p {
			return true
		}
	}
	return false
}

// Expect says what a correct server may answer now to payload under key.
func (m *Model) Expect(name, payload string) string {
	k := m.key(name)
	var worlds []string
	switch {
	case k.free && len(k.bound) == 0 && len(k.failed) == 0:
		worlds = append(worlds, "2xx creating the key's one resource")
	case k.free || k.bound[payload]:
		ok := "2xx"
		if k.id != "" {
			ok += " with id " + k.id
		}
		worlds = append(worlds, ok)
	}
	if status := k.failed[payload]; status != 0 {
		worlds = append(worlds, fmt.Sprintf("%d, the stored failure", status))
	}
	if others := k.othersList(payload); others != "" {
		worlds = append(worlds, fmt.Sprintf("%d, nothing created (if %s is bound to payload %s)", m.conv.Mismatch, name, others))
	}
	if len(worlds) == 0 {
		return "no success: nothing can bind " + name
	}
	return strings.Join(worlds, ", or ")
}

func (k *key) othersList(p string) string {
	var out []string
	for _, q := range slices.Sorted(maps.Keys(k.bound)) {
		if q != p {
			out = append(out, q)
		}
	}
	for _, q := range slices.Sorted(maps.Keys(k.failed)) {
		if q != p && !slices.Contains(out, q) {
			out = append(out, q)
		}
	}
	return strings.Join(out, " or ")
}

func must(v check.Violation) Finding   { return Finding{Level: check.MUST, Violation: v} }
func should(v check.Violation) Finding { return Finding{Level: check.SHOULD, Violation: v} }

func (k *key) violation(seq int, what, expected, observed string) check.Violation {
	return violation(k.name, seq, what, expected, observed)
}

func violation(subject string, seq int, what, expected, observed string) check.Violation {
	v := check.Violation{What: subject + ": " + what, Expected: expected, Observed: observed}
	if seq > 0 {
		v.Seqs = []int{seq}
	}
	return v
}

func counted(count int, ids []string) string {
	if len(ids) == 0 {
		return fmt.Sprint(count)
	}
	return fmt.Sprintf("%d (%s)", count, strings.Join(ids, ", "))
}
