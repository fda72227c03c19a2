package main_test

import (
	"os"
	"slices"
	"sort"
	"strconv"
	"testing"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/harness/check"
)

// The detection matrix: the harness is right only if the reference
// passes every check and every mutant fails exactly the checks its entry
// lists (MayCatch may go either way, and no other check may fail). Each
// target is run several times; one miss or one false alarm fails it.
//
// The property (P1) must catch every mutant by itself, so it is expected
// to fail against each one without being listed in its entry.

// matrixRuns is how many times each fake runs (IDEMSPEC_MATRIX_RUNS
// overrides it, e.g. to hunt flakes with 50).
func matrixRuns(t *testing.T, fallback int) int {
	if v := os.Getenv("IDEMSPEC_MATRIX_RUNS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("IDEMSPEC_MATRIX_RUNS=%q", v)
		}
		return n
	}
	return fallback
}

// matrixEntries is the reference and every mutant, each mutant's Catches
// extended with the property.
func matrixEntries() []fakes.Mutant {
	out := []fakes.Mutant{{Name: fakes.Reference}}
	for _, m := range fakes.Mutants() {
		m.Catches = append(slices.Clone(m.Catches), check.P1.ID)
		out = append(out, m)
	}
	return out
}

func TestDetectionMatrix(t *testing.T) {
	for _, m := range matrixEntries() {
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			runs := matrixRuns(t, 3)
			if slices.Contains(m.Catches, "S4") {
				runs = matrixRuns(t, 10) // races are where misses hide
			}
			for i := 0; i < runs; i++ {
				r := run(t, "--target", "fake:"+m.Name)
				verdicts := map[string]check.Status{}
				for _, c := range r.report.Checks {
					verdicts[c.ID] = c.Verdict
				}
				var missed, falseAlarms []string
				for _, c := range check.All() {
					v, ran := verdicts[c.ID]
					switch {
					case !ran:
						t.Errorf("run %d: check %s missing from the report", i+1, c.ID)
					case slices.Contains(m.MayCatch, c.ID):
					case slices.Contains(m.Catches, c.ID) && v != check.FAIL:
						missed = append(missed, c.ID+"="+string(v))
					case !slices.Contains(m.Catches, c.ID) && v != check.PASS && v != check.SKIP:
						falseAlarms = append(falseAlarms, c.ID+"="+string(v))
					}
				}
				sort.Strings(missed)
				sort.Strings(falseAlarms)
				if len(missed)+len(falseAlarms) > 0 {
					t.Fatalf("run %d of %d: missed %v, false alarms %v\n%s", i+1, runs, missed, falseAlarms, r.stdout)
				}
				wantCode := 1
				if len(m.Catches) == 0 {
					wantCode = 0
				}
				if r.code != wantCode {
					t.Fatalf("run %d: exit %d, want %d\n%s%s", i+1, r.code, wantCode, r.stdout, r.stderr)
				}
			}
		})
	}
}
