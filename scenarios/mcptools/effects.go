package mcptools

import (
	"fmt"
	"sort"
	"strings"
)

// Effects is M9's model of a tool that is safe to retry: per key, one
// effect. A key is an argument set of an idempotent tool, or a key
// value of a keyed tool, which any of its argument sets (the original,
// or one changed under the key) may bind. Each key is in one of a few
// worlds: unbound (""), or bound to the marker of the arguments that
// took effect. A call whose answer came narrows a key to one world; a
// call whose answer was lost (or failed) may or may not have run, so
// both worlds stay open until the oracle shows which. It is pure: no
// call, no clock.
type Effects struct {
	// Unit is how often one call's marker shows in the oracle's answer,
	// measured before the search.
	Unit int
	keys map[string]*worlds
}

type worlds struct {
	markers []string        // the markers of the key's argument sets
	open    map[string]bool // the worlds the key may be in
}

// NewEffects is the model of keys, each with the markers of its argument
// sets; every key starts unbound.
func NewEffects(unit int, keys map[string][]string) *Effects {
	e := &Effects{Unit: unit, keys: map[string]*worlds{}}
	for k, ms := range keys {
		e.keys[k] = &worlds{markers: ms, open: map[string]bool{"": true}}
	}
	return e
}

// Called takes a call with key k carrying marker m: an unbound key
// binds to m, a bound one stays as it is. sure says the call was
// answered (it ran); otherwise the worlds where it did not stay open.
func (e *Effects) Called(k, m string, sure bool) {
	w := e.keys[k]
	next := map[string]bool{}
	for b := range w.open {
		if !sure {
			next[b] = true
		}
		if b == "" {
			next[m] = true
		} else {
			next[b] = true
		}
	}
	w.open = next
}

// Forget is a restart that lost the server's whole state: every key is
// unbound again.
func (e *Effects) Forget() {
	for _, w := range e.keys {
		w.open = map[string]bool{"": true}
	}
}

// Observe holds the oracle's counts to the model: each key's markers
// must show as in one of its open worlds (Unit times for the bound
// marker, never for the others), and that world is all that stays open.
// It returns what was expected and observed for each key that broke.
func (e *Effects) Observe(counts map[string]int) []Mismatch {
	var out []Mismatch
	for _, k := range e.sortedKeys() {
		w := e.keys[k]
		var hit []string
		for b := range w.open {
			if e.shows(w, b, counts) {
				hit = append(hit, b)
			}
		}
		if len(hit) == 0 {
			out = append(out, Mismatch{Key: k, Expected: e.expected(w), Observed: observed(w, counts)})
			continue
		}
		w.open = map[string]bool{hit[0]: true} // the worlds of one key differ in what they show
	}
	return out
}

// Mismatch is one key whose effects the oracle shows other than the
// model allows.
type Mismatch struct{ Key, Expected, Observed string }

func (e *Effects) shows(w *worlds, bound string, counts map[string]int) bool {
	for _, m := range w.markers {
		want := 0
		if m == bound {
			want = e.Unit
		}
		if counts[m] != want {
			return false
		}
	}
	return true
}

// expected says the open worlds as counts: "m1=2 m2=0 or m1=0 m2=0".
func (e *Effects) expected(w *worlds) string {
	var alts []string
	for b := range w.open {
		var parts []string
		for _, m := range w.markers {
			n := 0
			if m == b {
				n = e.Unit
			}
			parts = append(parts, fmt.Sprintf("%s=%d", m, n))
		}
		alts = append(alts, strings.Join(parts, " "))
	}
	sort.Strings(alts)
	return strings.Join(alts, " or ")
}

func observed(w *worlds, counts map[string]int) string {
	var parts []string
	for _, m := range w.markers {
		parts = append(parts, fmt.Sprintf("%s=%d", m, counts[m]))
	}
	return strings.Join(parts, " ")
}

func (e *Effects) sortedKeys() []string {
	out := make([]string, 0, len(e.keys))
	for k := range e.keys {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
