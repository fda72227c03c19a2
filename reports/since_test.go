package reports_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/reports"
)

func runOf(verdicts map[string]check.Status) reports.Report {
	var cs []reports.CheckResult
	for id, v := range verdicts {
		op := ""
		if id, o, ok := strings.Cut(id, "@"); ok {
			cs = append(cs, reports.CheckResult{Entry: check.Entry{ID: id, Level: check.MUST}, Operation: o, Verdict: v})
			continue
		}
		cs = append(cs, reports.CheckResult{Entry: check.Entry{ID: id, Level: check.MUST}, Operation: op, Verdict: v})
	}
	return reports.New(reports.Run{ID: "r", Complete: true}, reports.Meta{RunID: "r"}, cs)
}

// Newly failing: broken now, not then (passed, skipped or not run);
// fixed: broken then, passing now; still failing: broken in both (an
// ACCEPTED finding is still one); a check broken then and not judged now
// is in none; checks of different operations are told apart.
func TestChangesSincePreviousRun(t *testing.T) {
	prev := runOf(map[string]check.Status{
		"S1": check.PASS, "S2": check.FAIL, "S3": check.FAIL, "S4": check.WARN, "K1": check.SKIP,
		"K2": check.FAIL, "T1": check.ACCEPTED, "S5a@refund": check.PASS, "S5a@create": check.FAIL,
	})
	prev.Run.ID = "previous-run"
	cur := runOf(map[string]check.Status{
		"S1": check.FAIL, "S2": check.PASS, "S3": check.FAIL, "S4": check.ACCEPTED, "K1": check.WARN,
		"K2": check.ERROR, "T1": check.FAIL, "K3": check.FAIL, "S5a@refund": check.FAIL, "S5a@create": check.PASS,
	})
	s := reports.Changes(prev, cur)
	for _, c := range []struct {
		name      string
		got, want []string
	}{
		{"newly failing", s.NewlyFailing, []string{"K1", "K3", "S1", "S5a [refund]"}},
		{"fixed", s.Fixed, []string{"S2", "S5a [create]"}},
		{"still failing", s.StillFailing, []string{"S3", "S4", "T1"}},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
	cur.Since = s
	md := markdownOf(t, cur)
	if !strings.Contains(md, "**Since the previous run** (`previous-run`") || !strings.Contains(md, `| K1, K3, S1, S5a \[refund\] | S2, S5a \[create\] | S3, S4, T1 |`) {
		t.Errorf("report.md lacks the table of changes:\n%s", md)
	}
	if strings.Index(md, "Since the previous run") > strings.Index(md, "## Checks") {
		t.Error("report.md: the changes are not at the top")
	}
}
