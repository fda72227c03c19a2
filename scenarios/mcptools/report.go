package mcptools

import (
	"fmt"
	"strings"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/reports"
)

// Report builds the audit's report: one result per check and tool (the
// tool is the subject), and the per-tool table.
func Report(results []Result, tools []Audited, run reports.Run, m reports.Meta) reports.Report {
	var checks []reports.CheckResult
	for _, r := range results {
		checks = append(checks, reports.CheckResult{
			Entry: r.Check, Subject: r.Tool.Name, Verdict: r.Verdict.Status, Reason: r.Verdict.Reason,
			Violations: r.Verdict.Violations, DurationMS: reports.MS(r.Elapsed), Evidence: r.Evidence,
		})
	}
	out := reports.New(run, m, checks)
	out.Tools = ToolTable(results, tools)
	return out
}

// ToolTable is the per-tool table: claim, verdicts, first evidence. A
// check that concerns a tool and has no result (the audit was cut short
// before it) is listed as not run; a tool with such a check and nothing
// worse than SKIP found is NOT AUDITED, never PASS: a finding stands,
// an absence of findings over checks that never ran says nothing.
func ToolTable(results []Result, tools []Audited) []reports.ToolRow {
	var rows []reports.ToolRow
	for _, a := range tools {
		row := reports.ToolRow{Tool: a.Tool.Name, Claimed: a.Tool.Claim(), Key: a.Key, Verdict: check.PASS}
		var vs []string
		ran := map[string]bool{}
		for _, r := range results {
			if r.Tool.Name != a.Tool.Name {
				continue
			}
			ran[r.Check.ID] = true
			vs = append(vs, fmt.Sprintf("%s %s", r.Check.ID, r.Verdict.Status))
			row.Verdict = reports.Worst(row.Verdict, r.Verdict.Status)
			if r.Verdict.Status != check.PASS && row.Evidence == "" {
				row.Evidence = r.Check.ID + ": " + r.Verdict.Reason
			}
		}
		unrun := 0
		for _, c := range Checks() {
			if c.Concerned(Offered{Audited: a}) && !ran[c.ID] {
				vs = append(vs, c.ID+" not run")
				unrun++
			}
		}
		if (unrun > 0 || len(ran) == 0) && (row.Verdict == check.PASS || row.Verdict == check.SKIP) {
			row.Verdict = reports.NotAudited
		}
		row.Verdicts = strings.Join(vs, ", ")
		rows = append(rows, row)
	}
	return rows
}

// Concerning lists, tool by tool, the IDs of the checks that concern
// it: the verdicts a whole audit of tools gives, from the registry.
func Concerning(tools []Audited) map[string][]string {
	out := map[string][]string{}
	for _, a := range tools {
		for _, c := range Checks() {
			if c.Concerned(Offered{Audited: a}) {
				out[a.Tool.Name] = append(out[a.Tool.Name], c.ID)
			}
		}
	}
	return out
}

// Planned is what the dry run says of one tool: its claim and, for each
// check that concerns it, how many calls it makes or why it will skip.
type Planned struct {
	Tool   Audited
	Checks []PlannedCheck
}

// PlannedCheck is one check in the plan.
type PlannedCheck struct {
	Check check.Entry
	Calls int
	Skip  string
}

// Plan lists what the audit will do to each tool, without calling any.
func Plan(srv Server, tools []Audited, s Settings) []Planned {
	var out []Planned
	for _, a := range tools {
		p := Planned{Tool: a}
		for _, c := range Checks() {
			on := Offered{Audited: a, Server: srv}
			if !c.Concerned(on) {
				continue
			}
			pc := PlannedCheck{Check: c.Entry(), Skip: c.Skips(on)}
			if c.Plan != nil {
				pc.Calls = c.Plan(s).MaxRequests
			}
			p.Checks = append(p.Checks, pc)
		}
		out = append(out, p)
	}
	return out
}
