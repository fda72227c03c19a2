package check

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Level is the requirement level of a check, as in RFC 2119.
type Level string

const (
	MUST   Level = "MUST"
	SHOULD Level = "SHOULD"
	MAY    Level = "MAY"
)

// Entry describes one entry of the catalogue: what a report says a
// check is.
type Entry struct {
	ID     string `json:"id"`
	Title  string `json:"title"` // reads "should ..."
	Level  Level  `json:"level"`
	Clause string `json:"clause"` // "core", or the draft section it comes from
	Group  string `json:"group"`  // the scenario family, e.g. "core", "restart"
	// Why is the incident the check prevents and Fix the pattern that
	// passes: a report carries them so a finding says what to do.
	Why string `json:"why,omitempty"`
	Fix string `json:"fix,omitempty"`
	// Stimulus and Proof (what idemspec does, what a verdict rests on)
	// are the catalogue's, for `idemspec explain`; a report has the
	// evidence itself.
	Stimulus string `json:"-"`
	Proof    string `json:"-"`
}

var (
	mu       sync.RWMutex
	registry = map[string]Entry{}
)

// Register adds c to the catalogue. It panics on a duplicate or malformed
// entry: that is a programming error caught by the first test run.
func Register(c Entry) Entry {
	mu.Lock()
	defer mu.Unlock()
	if c.ID == "" || !strings.HasPrefix(c.Title, "should ") {
		panic(fmt.Sprintf("check %q: needs an ID and a title starting with \"should \"", c.ID))
	}
	switch c.Level {
	case MUST, SHOULD, MAY:
	default:
		panic(fmt.Sprintf("check %s: level %q is not MUST, SHOULD or MAY", c.ID, c.Level))
	}
	if _, dup := registry[c.ID]; dup {
		panic("check " + c.ID + " registered twice")
	}
	registry[c.ID] = c
	return c
}

// Get returns the check with the given ID.
func Get(id string) (Entry, bool) {
	mu.RLock()
	defer mu.RUnlock()
	c, ok := registry[id]
	return c, ok
}

// All returns the catalogue in ID order (S1 < S2 < S10 < T1).
func All() []Entry {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]Entry, 0, len(registry))
	for _, c := range registry {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return LessID(out[i].ID, out[j].ID) })
	return out
}

// CompareID is LessID as slices.SortFunc wants it.
func CompareID(a, b string) int {
	switch {
	case LessID(a, b):
		return -1
	case LessID(b, a):
		return 1
	}
	return 0
}

// LessID orders IDs by letter prefix, then number, then suffix, so S10
// follows S9 and S5a follows S5.
func LessID(a, b string) bool {
	pa, na, sa := splitID(a)
	pb, nb, sb := splitID(b)
	if pa != pb {
		return pa < pb
	}
	if na != nb {
		return na < nb
	}
	return sa < sb
}

func splitID(id string) (prefix string, n int, suffix string) {
	i := 0
	for i < len(id) && (id[i] < '0' || id[i] > '9') {
		i++
	}
	j := i
	for j < len(id) && id[j] >= '0' && id[j] <= '9' {
		j++
	}
	n, _ = strconv.Atoi(id[i:j])
	return id[:i], n, id[j:]
}
