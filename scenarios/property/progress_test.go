package property_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/scenarios/property"
)

// TestSearchReportsItsProgress: a search tells Config.Progress each
// sequence and step while searching, then how the shrinking goes, ending
// on the counterexample the result holds. nodedup executes every
// request, so the first resubmission breaks a MUST rule.
func TestSearchReportsItsProgress(t *testing.T) {
	env := property.EnvOf(t, "nodedup")
	var seen []property.Progress
	cfg := property.Config{Sequences: 10, Steps: 10, Seed: 7, ShrinkTime: 2 * time.Second, Crashes: -1, Workers: 1,
		Progress: func(p property.Progress) { seen = append(seen, p) }}
	res, err := property.Search(context.Background(), env, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Must.Verdict.Status != check.FAIL || len(seen) == 0 {
		t.Fatalf("P1 %s with %d progress reports: want a FAIL, reported %v", res.Must.Verdict.Status, len(seen), res.Must.Evidence.Notes)
	}
	shrinking := 0
	for i, p := range seen {
		if p.Level != check.MUST || p.Of != 10 {
			t.Fatalf("report %d: %+v: want the MUST pass of 10 sequences", i, p)
		}
		if i > 0 && (p.Sequences < seen[i-1].Sequences || p.Steps < seen[i-1].Steps || (seen[i-1].Shrinking && !p.Shrinking)) {
			t.Fatalf("report %d went back: %+v after %+v", i, p, seen[i-1])
		}
		if p.Shrinking {
			shrinking++
		}
	}
	last := seen[len(seen)-1]
	if shrinking == 0 || last.Shrinks < 1 || last.Shortest != len(res.Must.Evidence.Steps) {
		t.Errorf("last report %+v (%d while shrinking): want it shrinking to the %d steps of the counterexample",
			last, shrinking, len(res.Must.Evidence.Steps))
	}
	if s, want := seen[0].String(), "MUST rules: sequence 1 of 10, 0 steps"; s != want {
		t.Errorf("first report reads %q, want %q", s, want)
	}
	if s, want := last.String(), "sequences tried"; !strings.HasPrefix(s, "MUST rules: shrinking, ") || !strings.HasSuffix(s, fmt.Sprintf(" now, %d %s", last.Shrinks, want)) {
		t.Errorf("last report reads %q", s)
	}
}
