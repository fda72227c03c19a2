package main_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/reports"
)

// maxShrunk is how many steps a shrunk counterexample may have against a
// mutant: each has one bug that two actions and the reconciliation show.
const maxShrunk = 4

// TestPropertyAloneCatchesEveryMutant is the property-only pass of the
// detection matrix: with every scenario filtered out, P1 passes against
// the reference and fails against every mutant, each run, at default
// settings, with a shrunk counterexample and the line that replays it.
func TestPropertyAloneCatchesEveryMutant(t *testing.T) {
	for _, m := range matrixEntries() {
		t.Run(strings.TrimPrefix(m.target, "fake:"), func(t *testing.T) {
			t.Parallel()
			runs := matrixRuns(t, 5)
			for i := 0; i < runs; i++ {
				r := run(t, "--target", m.target, "--label-filter", "property")
				p1 := propertyResult(t, r)
				want, code := check.FAIL, 1
				if m.Name == fakes.Reference {
					want, code = check.PASS, 0
				}
				if p1.Verdict != want || r.code != code {
					t.Fatalf("run %d of %d: P1 %s (exit %d), want %s (exit %d)\n%s%s", i+1, runs, p1.Verdict, r.code, want, code, r.stdout, r.stderr)
				}
				for _, c := range r.report.Checks {
					if c.ID != check.P1.ID && c.Verdict != check.SKIP {
						t.Fatalf("run %d: %s ran (%s) though the label filter selects the property alone", i+1, c.ID, c.Verdict)
					}
				}
				if want == check.PASS {
					continue
				}
				ev := p1.Evidence
				if n := len(ev.Steps); n == 0 || n > maxShrunk {
					t.Fatalf("run %d: counterexample of %d steps, want 1..%d\n%s", i+1, n, maxShrunk, r.stdout)
				}
				if !strings.HasPrefix(ev.Replay, "idemspec run --target "+m.target+" --label-filter property --seed ") {
					t.Fatalf("run %d: replay line %q", i+1, ev.Replay)
				}
				if !strings.Contains(r.stdout, "counterexample, shrunk to") || !strings.Contains(r.stdout, "replay: "+ev.Replay) {
					t.Fatalf("run %d: the terminal does not show the counterexample and its replay line:\n%s", i+1, r.stdout)
				}
			}
		})
	}
}

// TestPropertyReplayReproducesTheCounterexample runs the printed replay
// line and gets the same shrunk sequence (for a mutant whose bug shows on
// every run) or at least the same broken rule (for a race).
func TestPropertyReplayReproducesTheCounterexample(t *testing.T) {
	for _, c := range []struct {
		mutant string
		same   bool // the shrunk steps must be identical
	}{{"nodedup", true}, {"ignore-payload", true}, {"check-then-insert", false}} {
		t.Run(c.mutant, func(t *testing.T) {
			t.Parallel()
			first := propertyResult(t, run(t, "--target", "fake:"+c.mutant, "--label-filter", "property"))
			if first.Verdict != check.FAIL || first.Evidence.Replay == "" {
				t.Fatalf("P1 %s with replay line %q", first.Verdict, first.Evidence.Replay)
			}
			args := strings.Fields(first.Evidence.Replay)
			if args[0] != "idemspec" {
				t.Fatalf("replay line %q", first.Evidence.Replay)
			}
			dir := t.TempDir()
			r := idemspec(t, append(args[1:], "--report-dir", dir)...)
			rep, err := reports.ReadJSON(filepath.Join(dir, "report.json"))
			if err != nil {
				t.Fatal(err)
			}
			r.report = rep
			again := propertyResult(t, r)
			if again.Verdict != check.FAIL {
				t.Fatalf("replay: P1 %s\n%s", again.Verdict, r.stdout)
			}
			if got, want := brokenRules(again.Evidence.Steps), brokenRules(first.Evidence.Steps); !slices.Equal(got, want) {
				t.Errorf("replay broke %q, first run %q", got, want)
			}
			if c.same && !slices.Equal(shape(again.Evidence.Steps), shape(first.Evidence.Steps)) {
				t.Errorf("replay shrank to\n%s\nfirst run to\n%s", strings.Join(shape(again.Evidence.Steps), "\n"), strings.Join(shape(first.Evidence.Steps), "\n"))
			}
		})
	}
}

func TestPropertySeedIsPrintedAndStored(t *testing.T) {
	r := run(t, "--label-filter", "property", "--seed", "4242", "--checks", "3", "--steps", "5")
	if r.code != 0 || r.report.Run.Seed != 4242 || !strings.Contains(r.stdout, "seed 4242") {
		t.Fatalf("exit %d, report seed %d\n%s", r.code, r.report.Run.Seed, r.stdout)
	}
	p1 := propertyResult(t, r)
	if !slices.ContainsFunc(p1.Evidence.Notes, func(n string) bool {
		return strings.Contains(n, "rapid: 3 sequences (--checks 3)") && strings.Contains(n, "from seed 4242")
	}) {
		t.Errorf("notes %q do not give the checks and the seed", p1.Evidence.Notes)
	}
}

func TestPropertyBudgetCapsCreateRequests(t *testing.T) {
	r := run(t, "--label-filter", "property", "--budget", "30")
	p1 := propertyResult(t, r)
	if r.code != 0 || p1.Verdict != check.PASS {
		t.Fatalf("exit %d, P1 %s\n%s", r.code, p1.Verdict, r.stdout)
	}
	if !slices.ContainsFunc(p1.Evidence.Notes, func(n string) bool { return strings.Contains(n, "the request budget (30) ran out") }) {
		t.Errorf("notes %q do not say the budget ran out", p1.Evidence.Notes)
	}
	sent := -1
	for _, n := range p1.Evidence.Notes {
		if _, after, ok := strings.Cut(n, " steps, "); ok {
			fmt.Sscanf(after, "%d create requests", &sent)
		}
	}
	if sent < 1 || sent > 30 {
		t.Errorf("%d create requests sent under a budget of 30 (notes %q)", sent, p1.Evidence.Notes)
	}
}

func propertyResult(t *testing.T, r result) reports.CheckResult {
	t.Helper()
	for _, c := range r.report.Checks {
		if c.ID == check.P1.ID {
			return c
		}
	}
	t.Fatalf("no P1 in the report\n%s%s", r.stdout, r.stderr)
	return reports.CheckResult{}
}

func brokenRules(steps []history.Step) []string {
	var out []string
	for _, st := range steps {
		out = append(out, st.Broken...)
	}
	return out
}

// shape is a counterexample without its ids: what was done, to which key,
// with which payload, and what broke.
func shape(steps []history.Step) []string {
	var out []string
	for _, st := range steps {
		out = append(out, strings.Join([]string{st.Action, st.Key, st.Payload, st.Fault, st.Outcome, strings.Join(st.Broken, "; ")}, " | "))
	}
	return out
}
