package main_test

import (
	"strings"
	"testing"
)

// fastTier is what go test -short runs of a detection matrix (sample);
// make test runs every entry, each several times.
func fastTier[T any](entries []T, catches func(T) []string) []T {
	if !testing.Short() {
		return entries
	}
	return sample(entries, catches)
}

// sample keeps the first entry that catches nothing (the reference: a
// false alarm is the worst bug) and, for each check, the first entry
// that catches it, in the matrix's own order.
func sample[T any](entries []T, catches func(T) []string) []T {
	var out []T
	seen := map[string]bool{}
	for _, e := range entries {
		ids := catches(e)
		keep := len(ids) == 0 && !seen[""]
		if len(ids) == 0 {
			seen[""] = true
		}
		for _, id := range ids {
			keep = keep || !seen[id]
			seen[id] = true
		}
		if keep {
			out = append(out, e)
		}
	}
	return out
}

// serverCatches are the checks a server matrix's entry must fail, on one
// instance or on two.
func serverCatches(m matrixEntry) []string { return append(m.CaughtBy(), m.Multi...) }

// The sample keeps the reference and one catch of every check, and
// leaves out the entries that catch nothing new.
func TestSampleKeepsOneCatchOfEachCheck(t *testing.T) {
	type entry struct {
		name    string
		catches []string
	}
	got := sample([]entry{
		{"reference", nil}, {"reference?profile=stripe", nil},
		{"a", []string{"S1", "P1"}}, {"b", []string{"S1"}}, {"c", []string{"S4", "P1"}}, {"d", []string{"P2"}},
	}, func(e entry) []string { return e.catches })
	var names []string
	for _, e := range got {
		names = append(names, e.name)
	}
	if got, want := strings.Join(names, " "), "reference a c d"; got != want {
		t.Fatalf("sample %q, want %q", got, want)
	}
}
