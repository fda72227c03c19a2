package reports_test

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/reports"
)

// run makes a small report with the given verdicts, in the given order.
func run(target, id string, verdicts ...string) reports.Report {
	r := reports.Report{Schema: reports.Schema, Target: reports.Target{Name: target, Source: target}, Run: reports.Run{ID: id, Complete: true}}
	for _, v := range verdicts {
		cid, verdict, _ := strings.Cut(v, "=")
		r.Checks = append(r.Checks, reports.CheckResult{
			Entry:   check.Entry{ID: cid, Title: "should " + strings.ToLower(cid), Level: check.MUST},
			Verdict: check.Status(verdict),
		})
		switch check.Status(verdict) {
		case check.FAIL:
			r.Summary.Fail++
		case check.PASS:
			r.Summary.Pass++
		}
		r.Summary.Total++
	}
	return r
}

func TestCompareBuildsRowsAndColumns(t *testing.T) {
	m := reports.Compare([]reports.Report{
		run("fake:reference", "a1", "S2=PASS", "S10=PASS", "S1=PASS"),
		run("fake:nodedup", "b2", "S1=FAIL", "S2=FAIL"),
		run("fake:nodedup", "c3", "S1=FAIL", "K1=WARN"),
	})
	var labels []string
	for _, c := range m.Columns {
		labels = append(labels, c.Label+"="+c.Verdict)
	}
	if got := strings.Join(labels, ", "); got != "fake:reference=PASS, fake:nodedup=FAIL, fake:nodedup (run c3)=FAIL" {
		t.Errorf("columns %s", got)
	}
	var rows []string
	for _, r := range m.Rows {
		var cells []string
		for _, c := range r.Cells {
			if c.Ran {
				cells = append(cells, string(c.Verdict))
			} else {
				cells = append(cells, "-")
			}
		}
		rows = append(rows, r.ID+":"+strings.Join(cells, "/"))
	}
	if got := strings.Join(rows, " "); got != "K1:-/-/WARN S1:PASS/FAIL/FAIL S2:PASS/FAIL/- S10:PASS/-/-" {
		t.Errorf("rows %s", got)
	}
	if m.Count(1, check.FAIL) != 2 || m.Count(0, check.FAIL) != 0 {
		t.Errorf("Count is wrong")
	}
}

func TestCompareMarkdownAndHTMLAgree(t *testing.T) {
	m := reports.Compare([]reports.Report{
		run("fake:reference", "a1", "S1=PASS", "S2=PASS"),
		run("fake:nodedup", "b2", "S1=FAIL", "S2=FAIL"),
		run("fake:ignore-payload", "c3", "S1=PASS"),
	})
	var md bytes.Buffer
	if err := reports.WriteCompareMarkdown(&md, m); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| check | level | should ... | fake:reference | fake:nodedup | fake:ignore-payload |",
		"| S1 | MUST | s1 | ✅ PASS | ❌ FAIL | ✅ PASS |",
		"| S2 | MUST | s2 | ✅ PASS | ❌ FAIL | — |",
		"| **run** | | | ✅ **PASS** | ❌ **FAIL** | ✅ **PASS** |",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	var h bytes.Buffer
	if err := reports.WriteCompareHTML(&h, m); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(&h)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, td := range find(doc, func(n *html.Node) bool { _, ok := attr(n, "data-check"); return n.Data == "td" && ok }) {
		c, _ := attr(td, "data-check")
		tg, _ := attr(td, "data-target")
		v, _ := attr(td, "data-verdict")
		got[c+"@"+tg] = v
	}
	want := map[string]string{
		"S1@fake:reference": "PASS", "S1@fake:nodedup": "FAIL", "S1@fake:ignore-payload": "PASS",
		"S2@fake:reference": "PASS", "S2@fake:nodedup": "FAIL", "S2@fake:ignore-payload": "",
	}
	if len(got) != len(want) {
		t.Errorf("html cells %v", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("html cell %s = %q, want %q", k, got[k], v)
		}
	}
}
