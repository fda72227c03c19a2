package mutant

import (
	"fmt"
	"slices"
	"sort"

	"github.com/idemspec/idemspec/harness/check"
)

// Design is what an audit judged per subject must find, read from the
// registries alone: every check the audit's registry says concerns a
// subject of the reference passes, but for what the reference's own entry
// catches; a mutant's catches are found wanting on top of that.
type Design struct {
	Reference Mutant
	// Concerned is, for each subject of the reference, the IDs of the
	// checks that concern it, as the audit's registry says.
	Concerned map[string][]string
	// Levels is each check's requirement level, from the same registry:
	// a MUST check that catches is a FAIL, a SHOULD or MAY one a WARN.
	Levels map[string]check.Level
}

// Mismatches says how an audit's verdicts (got) differ from what m, the
// reference or a mutant of it, must get. A check that no longer concerns
// a subject a mutant changed (its claim dropped) may be missing.
func (d Design) Mismatches(m Mutant, got map[Catch]check.Status) []string {
	var out []string
	want := map[Catch]check.Status{}
	for on, ids := range d.Concerned {
		for _, id := range ids {
			want[Catch{id, on}] = check.PASS
		}
	}
	var bug []Catch // what m catches beyond the reference's own findings
	if m.Name != d.Reference.Name {
		bug = m.Catches
	}
	for _, catches := range [][]Catch{d.Reference.Catches, bug} {
		for _, c := range catches {
			s, err := d.found(c.Check)
			if err != nil {
				out = append(out, fmt.Sprintf("%s on %s: %v", c.Check, c.On, err))
				continue
			}
			want[c] = s
		}
	}
	for c, w := range want {
		g, ok := got[c]
		switch {
		case !ok && !slices.Contains(bug, c) && slices.ContainsFunc(bug, func(b Catch) bool { return b.On == c.On }):
		case !ok:
			out = append(out, fmt.Sprintf("%s on %s: no verdict, want %s", c.Check, c.On, w))
		case g != w:
			out = append(out, fmt.Sprintf("%s on %s: %s, want %s", c.Check, c.On, g, w))
		}
	}
	for c, g := range got {
		if _, ok := want[c]; !ok {
			out = append(out, fmt.Sprintf("%s on %s: %s, but no verdict was designed", c.Check, c.On, g))
		}
	}
	sort.Strings(out)
	return out
}

// found is the status of a check that finds its subject wanting: FAIL
// for a MUST check, WARN for a SHOULD or MAY one.
func (d Design) found(id string) (check.Status, error) {
	switch level, ok := d.Levels[id]; {
	case !ok:
		return "", fmt.Errorf("%s is no check of the registry", id)
	case level == check.MUST:
		return check.FAIL, nil
	default:
		return check.WARN, nil
	}
}
