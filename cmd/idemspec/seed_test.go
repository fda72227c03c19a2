package main_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/scenarios"
)

// TestSeedDrawsS5bsCrash: on a managed process without process.crash_at,
// S5b's crash lands at a delay drawn from the crash window, and the draw
// comes from --seed: two runs with one seed crash at the same delay,
// a run with another seed at another. (The seed reaches the checks as a
// value the front end builds from the flag; one that did not arrive
// would draw the same delay whatever the seed.)
func TestSeedDrawsS5bsCrash(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "target.yaml")
	if err := os.WriteFile(target, []byte(strings.Replace(locatedTarget, "MUTANT", "reference", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	runs := []struct{ name, seed string }{{"first", "7"}, {"again", "7"}, {"other", "8"}}
	drawn := make([]string, len(runs))
	// The group returns when its parallel runs have finished.
	t.Run("runs", func(t *testing.T) {
		for i, run := range runs {
			t.Run(run.name, func(t *testing.T) {
				t.Parallel()
				out := filepath.Join(dir, run.name)
				r := runEnv(t, nil, "--target", target, "--label-filter", "S5b", "--seed", run.seed, "--report-dir", out)
				drawn[i] = crashDrawn(t, r)
			})
		}
	})
	if t.Failed() {
		return
	}
	if drawn[0] == "" || drawn[1] == "" {
		// A crash that came after the answer on a busy machine is tried
		// again with the next draw: the runs' first draws are not shown.
		t.Skipf("a first crash came after the answer: draws %q", drawn)
	}
	if drawn[0] != drawn[1] {
		t.Errorf("--seed 7 twice: crashes drawn at %q and %q, want one delay", drawn[0], drawn[1])
	}
	if drawn[2] != "" && drawn[2] == drawn[0] {
		t.Errorf("--seed 7 and --seed 8 both drew the crash at %q: the seed does not reach S5b's draw", drawn[0])
	}
}

// drawnDelay is the delay a crash drawn from the crash window waited.
var drawnDelay = regexp.MustCompile(`crash point: (\S+) after the request was delivered \(drawn from the crash window`)

// crashDrawn is the delay S5b's crash was drawn at when its first crash
// landed mid-request ("" when it was tried again).
func crashDrawn(t *testing.T, r result) string {
	t.Helper()
	s5b := checkResult(t, r, scenarios.S5b.ID)
	var delay string
	for _, n := range s5b.Evidence.Notes {
		if strings.Contains(n, "came after the answer") {
			return ""
		}
		if m := drawnDelay.FindStringSubmatch(n); m != nil {
			delay = m[1]
		}
	}
	if delay == "" {
		t.Errorf("S5b %s: no drawn crash point in its notes %q\n%s", s5b.Verdict, s5b.Evidence.Notes, r.stdout)
	}
	return delay
}
