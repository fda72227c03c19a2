package reports_test

import (
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/reports"
)

// guidedReport is the synthetic report with why-and-fix texts on every
// check, so the writers can be held to showing them exactly under the
// findings that broke a check.
func guidedReport() reports.Report {
	r := syntheticReport()
	for i := range r.Checks {
		c := &r.Checks[i]
		c.Why, c.Fix = "WHY-"+c.ID+" <b>x</b>", "FIX-"+c.ID
	}
	return r
}

// Every FAIL and WARN shows why it matters and how to fix it, in
// Markdown and HTML; a PASS, SKIP or ERROR does not (an ERROR says
// nothing about the target).
func TestFindingsSayWhyAndHowToFix(t *testing.T) {
	r := guidedReport()
	md := markdownOf(t, r)
	doc, page := page(t, r)
	for _, c := range r.Checks {
		shown := c.Verdict == check.FAIL || c.Verdict == check.WARN
		if got := strings.Contains(md, "**How to fix:** FIX-"+c.ID); got != shown {
			t.Errorf("Markdown, %s %s: fix shown %t, want %t", c.ID, c.Verdict, got, shown)
		}
		if shown && !strings.Contains(md, "**Why it matters:** WHY-"+c.ID+" &lt;b&gt;x&lt;/b&gt;") {
			t.Errorf("Markdown, %s: no escaped why under the finding", c.ID)
		}
		details := find(doc, func(n *html.Node) bool { v, _ := attr(n, "data-check"); return n.Data == "details" && v == c.ID })
		got := false
		for _, d := range details {
			for _, g := range find(d, func(n *html.Node) bool { return hasClass(n, "guidance") }) {
				text := text(g)
				got = got || (strings.Contains(text, "WHY-"+c.ID+" <b>x</b>") && strings.Contains(text, "FIX-"+c.ID))
			}
		}
		if got != shown {
			t.Errorf("HTML, %s %s: guidance shown %t, want %t", c.ID, c.Verdict, got, shown)
		}
	}
	if strings.Contains(page, "<b>x</b>") {
		t.Error("HTML: the why text was not escaped")
	}
}

// A check without the texts (a report of an older idemspec read back)
// gets no empty guidance.
func TestNoGuidanceWithoutTexts(t *testing.T) {
	r := syntheticReport()
	if md := markdownOf(t, r); strings.Contains(md, "How to fix") {
		t.Error("Markdown shows an empty fix")
	}
	if _, p := page(t, r); strings.Contains(p, `class="guidance"`) {
		t.Error("HTML shows an empty fix")
	}
}
