package reports_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/reports"
)

// operationsReport is a run of two operations: S1 passes in both, S4
// fails in refund only.
func operationsReport() reports.Report {
	s1 := check.Entry{ID: "S1", Title: "should create one", Level: check.MUST, Group: "core"}
	s4 := check.Entry{ID: "S4", Title: "should survive a burst", Level: check.MUST, Group: "core"}
	var checks []reports.CheckResult
	for _, op := range []string{"create-order", "refund"} {
		s4verdict := check.PASS
		if op == "refund" {
			s4verdict = check.FAIL
		}
		// Given out of order: the report sorts operation by operation.
		checks = append(checks,
			reports.CheckResult{Entry: s4, Operation: op, Verdict: s4verdict, Reason: "two resources"},
			reports.CheckResult{Entry: s1, Operation: op, Verdict: check.PASS})
	}
	return reports.New(reports.Run{Started: t0, Complete: true}, reports.Meta{Version: "test", Target: reports.Target{Name: "shop"}}, checks)
}

func TestReportGroupsByOperation(t *testing.T) {
	r := operationsReport()
	var order []string
	for _, c := range r.Checks {
		order = append(order, c.Label())
	}
	if got := strings.Join(order, ","); got != "S1 [create-order],S4 [create-order],S1 [refund],S4 [refund]" {
		t.Errorf("checks in order %s", got)
	}
	var js bytes.Buffer
	if err := reports.WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Checks []struct{ ID, Operation string }
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.Checks[3].Operation != "refund" {
		t.Errorf("checks[].operation in JSON: %+v (%v)", back.Checks, err)
	}
	rows := r.Matrix()
	if len(rows) != 2 || rows[1].ID != "S4" || rows[1].Cells[0].Verdict != check.PASS || rows[1].Cells[1].Verdict != check.FAIL {
		t.Errorf("matrix %+v", rows)
	}
}

func TestReportWithoutOperationsHasNoOperationField(t *testing.T) {
	r := syntheticReport()
	var js bytes.Buffer
	if err := reports.WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(js.String(), `"operation"`) || r.Matrix() != nil {
		t.Error("a report without operations names one")
	}
}

func TestJUnitSuitePerOperation(t *testing.T) {
	doc := junitOf(t, operationsReport())
	if len(doc.Suites) != 2 {
		t.Fatalf("%d testsuites, want one per operation", len(doc.Suites))
	}
	for i, op := range []string{"create-order", "refund"} {
		s := doc.Suites[i]
		if props(s.Properties)["operation"] != op || len(s.Cases) != 2 {
			t.Errorf("suite %d: operation %q, %d cases", i, props(s.Properties)["operation"], len(s.Cases))
		}
	}
	if doc.Suites[0].Failures != 0 || doc.Suites[1].Failures != 1 || doc.Failures != 1 || doc.Tests != 4 {
		t.Errorf("failures %d, %d; whole %d of %d", doc.Suites[0].Failures, doc.Suites[1].Failures, doc.Failures, doc.Tests)
	}
}

func TestMarkdownAndHTMLSectionPerOperation(t *testing.T) {
	r := operationsReport()
	var md, page bytes.Buffer
	if err := reports.WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if err := reports.WriteHTML(&page, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Operations × checks", "| check | create-order | refund |", "## Checks of operation create-order", "## Checks of operation refund", "](#-s4-refund-fail-"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md.String())
		}
	}
	for _, want := range []string{"Operations × checks", `<h3 class="operation">operation refund</h3>`, `href="#check-S4-refund"`, `id="check-S4-refund"`} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}

func TestCompareKeepsEachOperationsRow(t *testing.T) {
	m := reports.Compare([]reports.Report{operationsReport(), operationsReport()})
	var ids []string
	for _, row := range m.Rows {
		ids = append(ids, row.ID)
	}
	if got := strings.Join(ids, ","); got != "S1 [create-order],S4 [create-order],S1 [refund],S4 [refund]" {
		t.Errorf("rows %s", got)
	}
	if m.Rows[3].Cells[1].Verdict != check.FAIL {
		t.Errorf("S4 [refund] in the second run: %+v", m.Rows[3].Cells[1])
	}
}
