package reports_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/reports"
)

// verdicts builds a report of checks with these verdicts, counted as New
// counts them.
func verdicts(strict bool, vs ...check.Status) reports.Report {
	var cs []reports.CheckResult
	for i, v := range vs {
		id := "S" + string(rune('1'+i))
		cs = append(cs, reports.CheckResult{Entry: check.Entry{ID: id, Title: "should " + id, Level: check.MUST}, Verdict: v})
	}
	return reports.New(reports.Run{ID: "r1a2b3c4", Complete: true}, reports.Meta{Strict: strict}, cs)
}

func TestHeadline(t *testing.T) {
	P, F, W, S := check.PASS, check.FAIL, check.WARN, check.SKIP
	tests := []struct {
		name string
		r    reports.Report
		want string
	}{
		{"every check passed", verdicts(false, P, P, P), "all 3 checks passed"},
		{"passed, some skipped", verdicts(false, P, P, S), "all 2 checks passed, 1 skipped"},
		{"passed over warnings", verdicts(false, P, W, P, W), "passed, with 2 warnings: 2 of 4 checks passed"},
		{"one warning", verdicts(false, P, W, S), "passed, with 1 warning: 1 of 2 checks passed, 1 skipped"},
		{"nothing ran", verdicts(false, S, S), "no check ran: all 2 skipped"},
		{"failed, with a warning", verdicts(false, P, F, W), "1 of 3 checks failed, with 1 warning"},
		{"strict: the warning fails", verdicts(true, P, F, W), "2 of 3 checks failed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.r.Headline(); got != tc.want {
				t.Errorf("headline %q, want %q", got, tc.want)
			}
		})
	}
}

// TestEveryFormatSaysPassedWithWarnings: a run that passed over two
// WARNs says so in JSON, JUnit, Markdown and HTML, and none of them says
// "all ... passed".
func TestEveryFormatSaysPassedWithWarnings(t *testing.T) {
	r := verdicts(false, check.PASS, check.WARN, check.PASS, check.WARN, check.PASS)
	const want = "passed, with 2 warnings: 3 of 5 checks passed"

	var js bytes.Buffer
	if err := reports.WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Summary struct{ Text string } `json:"summary"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	doc := junitOf(t, r)
	md := markdownOf(t, r)
	root, _ := page(t, r)
	banner := find(root, func(n *html.Node) bool { v, _ := attr(n, "id"); return v == "verdict" })
	if len(banner) != 1 {
		t.Fatalf("%d verdict banners", len(banner))
	}
	firstLine, _, _ := strings.Cut(strings.TrimPrefix(md, md[:strings.Index(md, "**")]), "\n")
	for format, said := range map[string]string{
		"json":     back.Summary.Text,
		"junit":    props(doc.Suites[0].Properties)["summary"],
		"markdown": firstLine,
		"html":     text(banner[0]),
	} {
		if !strings.Contains(said, want) || strings.Contains(said, "all ") {
			t.Errorf("%s says %q, want %q and no \"all\"", format, said, want)
		}
	}
}

// TestFindingsLeadWithFailures: Markdown expands FAIL, then ERROR, then
// WARN; HTML shows FAIL, ERROR, WARN, SKIP, PASS; each group in
// catalogue order.
func TestFindingsLeadWithFailures(t *testing.T) {
	r := verdicts(false, check.WARN, check.PASS, check.FAIL, check.SKIP, check.ERROR, check.FAIL, check.WARN)
	// S1 WARN, S2 PASS, S3 FAIL, S4 SKIP, S5 ERROR, S6 FAIL, S7 WARN
	md := markdownOf(t, r)
	var order []string
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "## ") && strings.Contains(line, ": should ") {
			f := strings.Fields(line)
			order = append(order, f[2]+" "+f[3])
		}
	}
	if want := []string{"S3 FAIL:", "S6 FAIL:", "S5 ERROR:", "S1 WARN:", "S7 WARN:"}; !slices.Equal(order, want) {
		t.Errorf("Markdown findings in the order %q, want %q", order, want)
	}
	root, _ := page(t, r)
	order = nil
	for _, d := range find(root, func(n *html.Node) bool { return n.Data == "details" && hasClass(n, "check") }) {
		id, _ := attr(d, "data-check")
		v, _ := attr(d, "data-verdict")
		order = append(order, id+" "+v)
	}
	if want := []string{"S3 FAIL", "S6 FAIL", "S5 ERROR", "S1 WARN", "S7 WARN", "S4 SKIP", "S2 PASS"}; !slices.Equal(order, want) {
		t.Errorf("HTML checks in the order %q, want %q", order, want)
	}
}

// TestHistoryShowsWhereKeysDiffer: keys of one run begin with its id, so
// the history tables show what follows it, and the whole key stays the
// HTML cell's title.
func TestHistoryShowsWhereKeysDiffer(t *testing.T) {
	keys := []string{"r1a2b3c4-5ad6-4e88-ab9f-b2e921f59cce", "r1a2b3c4-91c0-4f11-8d2e-0a0b0c0d0e0f", ""}
	var xs []history.Exchange
	for i, k := range keys {
		x := history.Exchange{Seq: i + 1, Step: "send", Key: k, Lane: "clean", Outcome: history.OK, Status: 400}
		xs = append(xs, x)
	}
	r := reports.New(reports.Run{ID: "r1a2b3c4", Complete: true}, reports.Meta{}, []reports.CheckResult{{
		Entry: check.Entry{ID: "K2", Title: "should K2", Level: check.MUST}, Verdict: check.FAIL,
		Violations: []check.Violation{{What: "x", Seqs: []int{1}}}, Evidence: check.Evidence{History: xs},
	}})
	md := markdownOf(t, r)
	for _, label := range []string{"`…5ad6-4e88-ab…`", "`…91c0-4f11-8d…`", "`(none)`"} {
		if !strings.Contains(md, "| "+label+" |") {
			t.Errorf("Markdown history lacks the key %s:\n%s", label, md)
		}
	}
	root, _ := page(t, r)
	cells := find(root, func(n *html.Node) bool {
		title, ok := attr(n, "title")
		return n.Data == "code" && ok && slices.Contains(keys, title)
	})
	if len(cells) != len(keys) {
		t.Fatalf("%d key cells with the whole key as title, want %d", len(cells), len(keys))
	}
	for i, c := range cells {
		if got := text(c); strings.HasPrefix(got, "r1a2b3c4") || (keys[i] != "" && !strings.Contains(keys[i], strings.Trim(got, "…"))) {
			t.Errorf("key cell %d shows %q for %q: want the part after the run id", i, got, keys[i])
		}
	}
}
