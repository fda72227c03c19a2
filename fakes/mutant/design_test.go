package mutant_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/fakes/mutant"
	"github.com/idemspec/idemspec/harness/check"
)

// design is a registry of one MUST check (MA) and one SHOULD check (MS),
// both concerning tools a and b, and a reference found wanting on MS on b.
var design = mutant.Design{
	Reference: mutant.Mutant{Name: "reference", Catches: []mutant.Catch{{Check: "MS", On: "b"}}},
	Concerned: map[string][]string{"a": {"MA", "MS"}, "b": {"MA", "MS"}},
	Levels:    map[string]check.Level{"MA": check.MUST, "MS": check.SHOULD},
}

type verdicts = map[mutant.Catch]check.Status

func TestDesignReadsTheStatusFromTheLevel(t *testing.T) {
	breaksBoth := mutant.Mutant{Name: "lies-on-a", Catches: []mutant.Catch{{Check: "MA", On: "a"}, {Check: "MS", On: "a"}}}
	for _, tc := range []struct {
		name    string
		m       mutant.Mutant
		got     verdicts
		problem string // "" for none
	}{
		{"the reference as designed", design.Reference,
			verdicts{{"MA", "a"}: check.PASS, {"MS", "a"}: check.PASS, {"MA", "b"}: check.PASS, {"MS", "b"}: check.WARN}, ""},
		{"the reference's SHOULD finding as a FAIL", design.Reference,
			verdicts{{"MA", "a"}: check.PASS, {"MS", "a"}: check.PASS, {"MA", "b"}: check.PASS, {"MS", "b"}: check.FAIL}, "MS on b: FAIL, want WARN"},
		{"the reference's finding missed", design.Reference,
			verdicts{{"MA", "a"}: check.PASS, {"MS", "a"}: check.PASS, {"MA", "b"}: check.PASS, {"MS", "b"}: check.PASS}, "MS on b: PASS, want WARN"},
		{"a mutant caught as designed", breaksBoth,
			verdicts{{"MA", "a"}: check.FAIL, {"MS", "a"}: check.WARN, {"MA", "b"}: check.PASS, {"MS", "b"}: check.WARN}, ""},
		{"a mutant's MUST catch as a WARN", breaksBoth,
			verdicts{{"MA", "a"}: check.WARN, {"MS", "a"}: check.WARN, {"MA", "b"}: check.PASS, {"MS", "b"}: check.WARN}, "MA on a: WARN, want FAIL"},
		{"a mutant's SHOULD catch as a FAIL", breaksBoth,
			verdicts{{"MA", "a"}: check.FAIL, {"MS", "a"}: check.FAIL, {"MA", "b"}: check.PASS, {"MS", "b"}: check.WARN}, "MS on a: FAIL, want WARN"},
		{"a mutant without the reference's finding", breaksBoth,
			verdicts{{"MA", "a"}: check.FAIL, {"MS", "a"}: check.WARN, {"MA", "b"}: check.PASS, {"MS", "b"}: check.PASS}, "MS on b: PASS, want WARN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := design.Mismatches(tc.m, tc.got)
			var want []string
			if tc.problem != "" {
				want = []string{tc.problem}
			}
			if !slices.Equal(got, want) {
				t.Errorf("mismatches %q, want %q", got, want)
			}
		})
	}
}

// A verdict nobody designed is a mismatch, and so is a missing one, but
// on a subject the mutant changed, whose claim it may have dropped.
func TestDesignMissingAndUndesignedVerdicts(t *testing.T) {
	dropsClaim := mutant.Mutant{Name: "drops-a-claim", Catches: []mutant.Catch{{Check: "MS", On: "a"}}}
	got := design.Mismatches(dropsClaim, verdicts{{"MS", "a"}: check.WARN, {"MA", "b"}: check.PASS, {"MS", "b"}: check.WARN, {"MA", "c"}: check.PASS})
	want := []string{"MA on c: PASS, but no verdict was designed"}
	if !slices.Equal(got, want) {
		t.Errorf("mismatches %q, want %q (MA on a may be missing: the mutant changed a)", got, want)
	}
	got = design.Mismatches(design.Reference, verdicts{{"MS", "a"}: check.PASS, {"MA", "b"}: check.PASS, {"MS", "b"}: check.WARN})
	if want := []string{"MA on a: no verdict, want PASS"}; !slices.Equal(got, want) {
		t.Errorf("the reference: mismatches %q, want %q", got, want)
	}
}

// A catch of a check the registry does not hold says so: the entry is
// wrong, not the audit.
func TestDesignNamesAnUnknownCheck(t *testing.T) {
	typo := mutant.Mutant{Name: "typo", Catches: []mutant.Catch{{Check: "MX", On: "a"}}}
	got := design.Mismatches(typo, verdicts{{"MA", "a"}: check.PASS, {"MS", "a"}: check.PASS, {"MA", "b"}: check.PASS, {"MS", "b"}: check.WARN})
	if len(got) != 1 || !strings.Contains(got[0], "MX is no check of the registry") {
		t.Errorf("mismatches %q, want one naming MX as no check", got)
	}
}

func TestCaughtByListsEachCheckOnce(t *testing.T) {
	m := mutant.Mutant{Catches: append(mutant.Checks("S1", "P1"), mutant.Catch{Check: "M9", On: "a"}, mutant.Catch{Check: "M9", On: "b"})}
	if got, want := m.CaughtBy(), []string{"S1", "P1", "M9"}; !slices.Equal(got, want) {
		t.Errorf("CaughtBy: %q, want %q", got, want)
	}
}
