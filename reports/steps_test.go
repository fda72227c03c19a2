package reports_test

import (
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/reports"
)

// propertyReport is a run whose one check is a property that failed with
// a shrunk counterexample, some of its text hostile.
func propertyReport() reports.Report {
	first, dup := exchange(1, "#1 burst k1 100", "clean", 201, "res_a"), exchange(2, "#1 burst k1 100", "clean", 201, "res_b")
	r := syntheticReport()
	r.Checks = []reports.CheckResult{{
		Entry:   check.Entry{ID: "P1", Title: "should execute each key once", Level: check.MUST, Clause: "core", Group: "property"},
		Verdict: check.FAIL, Reason: "k1: more than one resource",
		Violations: []check.Violation{{What: "k1: more than one resource", Expected: "at most 1", Observed: "2 (res_a, res_b)"}},
		Evidence: check.Evidence{
			History: []history.Exchange{first, dup},
			Steps: []history.Step{
				{N: 1, Action: "burst of 2", Key: "k1", Payload: "100", Outcome: "ok ×2", Expected: "2xx creating the key's one resource",
					Observed: "201 res_a, 201 res_b; oracle k1=2", Broken: []string{"k1: more than one resource"}, Seqs: []int{1, 2}},
				{N: 2, Action: "reconcile", Outcome: "", Expected: "every key acknowledged or found has one resource", Observed: hostile},
			},
			Replay: "idemspec run --target fake:check-then-insert --label-filter property --seed 42 --sequences 1 --steps 25",
		},
	}}
	r.Summary = reports.Summary{Total: 1, Fail: 1}
	return r
}

func TestMarkdownShowsTheCounterexample(t *testing.T) {
	md := markdownOf(t, propertyReport())
	sec := section(md, "P1 FAIL")
	for _, want := range []string{
		"**Counterexample, shrunk to 2 steps**",
		"| # | action | key | payload | fault | outcome | expected | observed |",
		"| 1 | burst of 2 | k1 | 100 |  | ok ×2 | 2xx creating the key's one resource | 201 res\\_a, 201 res\\_b; oracle k1=2<br>**broken:** k1: more than one resource |",
		"Replay: `idemspec run --target fake:check-then-insert --label-filter property --seed 42 --sequences 1 --steps 25`",
	} {
		if !strings.Contains(sec, want) {
			t.Errorf("the P1 section lacks %q:\n%s", want, sec)
		}
	}
	for _, row := range strings.Split(sec, "\n") {
		if strings.HasPrefix(row, "| 2 | reconcile") && unescapedPipes(row) != 9 {
			t.Errorf("a hostile cell breaks the steps table: %q", row)
		}
	}
}

func TestHTMLShowsTheCounterexample(t *testing.T) {
	doc, raw := page(t, propertyReport())
	if strings.Contains(raw, "<script>alert") {
		t.Error("hostile step text reached the page unescaped")
	}
	tables := find(doc, func(n *html.Node) bool { return n.Data == "table" && hasClass(n, "steps") })
	if len(tables) != 1 {
		t.Fatalf("%d steps tables, want 1", len(tables))
	}
	rows := find(tables[0], func(n *html.Node) bool { return n.Data == "tr" })
	if len(rows) != 3 { // the heading and two steps
		t.Fatalf("%d rows, want 3", len(rows))
	}
	if !hasClass(rows[1], "cited") || hasClass(rows[2], "cited") {
		t.Error("only the step that broke a rule is marked")
	}
	if got := text(rows[1]); !strings.Contains(got, "burst of 2") || !strings.Contains(got, "broken: k1: more than one resource") {
		t.Errorf("step 1 reads %q", got)
	}
	replay := find(doc, func(n *html.Node) bool { return n.Data == "p" && hasClass(n, "replay") })
	if len(replay) != 1 || !strings.Contains(text(replay[0]), "--seed 42 --sequences 1") {
		t.Error("no replay line")
	}
}
