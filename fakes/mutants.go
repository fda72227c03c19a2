package fakes

import (
	"fmt"
	"sort"
	"strings"
)

// bug names the one defect a mutant adds to the reference server. The
// handler tests for it at the single place where the mutant departs from
// the reference, so each mutant reads as "the reference, except here".
type bug int

const (
	noBug bug = iota
	bugNoDedup
	bugCheckThenInsert
	bugIgnorePayload
)

// Mutant is the reference server plus exactly one named bug, with the
// checks that must catch it. The detection matrix holds the harness to
// Catches: every listed check fails, every other check passes.
type Mutant struct {
	Name    string
	Bug     string   // what is wrong, in one sentence
	Catches []string // check IDs that must fail against this mutant
	// MayCatch lists checks that may also fail, with the reason in Why;
	// the matrix accepts either verdict for these and no others.
	MayCatch []string
	Why      string
	bug      bug
}

// Reference is the name of the correct server.
const Reference = "reference"

var mutants = []Mutant{
	{
		Name: "nodedup",
		Bug:  "ignores the idempotency key: every request executes",
		// S6: it keeps no key record, so after a lost answer the client's
		// look-up finds nothing and its same-key resubmission executes
		// again: two resources.
		Catches: []string{"S1", "S2", "S3", "S4", "S6"},
		bug:     bugNoDedup,
	},
	{
		Name:    "check-then-insert",
		Bug:     "looks the key up, then inserts without a unique constraint: concurrent requests race through the gap",
		Catches: []string{"S4"},
		bug:     bugCheckThenInsert,
	},
	{
		Name:    "ignore-payload",
		Bug:     "never compares the payload hash: a reused key with another payload replays the first answer",
		Catches: []string{"S3"},
		bug:     bugIgnorePayload,
	},
}

// Mutants lists every mutant, sorted by name.
func Mutants() []Mutant {
	out := append([]Mutant(nil), mutants...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// LookupMutant finds a mutant by name; "reference" and "" are the correct
// server, which has no bug.
func LookupMutant(name string) (Mutant, error) {
	if name == "" || name == Reference {
		return Mutant{Name: Reference}, nil
	}
	for _, m := range mutants {
		if m.Name == name {
			return m, nil
		}
	}
	names := []string{Reference}
	for _, m := range Mutants() {
		names = append(names, m.Name)
	}
	return Mutant{}, fmt.Errorf("unknown fake %q (known: %s)", name, strings.Join(names, ", "))
}
