package reports

import (
	"strings"

	"github.com/idemspec/idemspec/harness/check"
)

// ToolRow is one tool of an MCP tool audit: what it claims, and what the
// checks that concern it found.
type ToolRow struct {
	Tool string `json:"tool"`
	// Claimed is its annotations in a few words ("idempotent,
	// destructive"); Key the input property taken as an idempotency key.
	Claimed string `json:"claimed"`
	Key     string `json:"key,omitempty"`
	// Verdict is the worst verdict of its checks, or NotAudited when
	// some never ran and none found worse than SKIP; Verdicts lists them
	// ("M1 PASS, M2 FAIL, M9 not run").
	Verdict  check.Status `json:"verdict"`
	Verdicts string       `json:"verdicts"`
	// Evidence is the first reason of a verdict that did not pass.
	Evidence string `json:"evidence,omitempty"`
}

// NotAudited is the verdict of a tool whose audit was cut short before
// its checks found anything: an interrupt or the time limit came first.
// It is a tool's verdict only, never a check's.
const NotAudited check.Status = "NOT AUDITED"

// Class is the row's CSS class in the HTML report.
func (t ToolRow) Class() string {
	if t.Verdict == NotAudited {
		return "v-incomplete"
	}
	return verdictClass(t.Verdict)
}

// Label names the check as the report lists it: its ID, and what it
// judged when it judges several things (M1 put_note), or the operation
// it drove (S1 [create-order]).
func (c CheckResult) Label() string {
	l := c.ID
	if c.Subject != "" {
		l += " " + c.Subject
	}
	if c.Operation != "" {
		l += " [" + c.Operation + "]"
	}
	return l
}

// Anchor is the check's fragment in the HTML report.
func (c CheckResult) Anchor() string {
	return strings.NewReplacer(" ", "-", "[", "", "]", "").Replace(c.Label())
}

// tools writes the per-tool table, if the report has one.
func (md *markdown) tools(rows []ToolRow) {
	if len(rows) == 0 {
		return
	}
	md.line("")
	md.line("## Tools")
	md.line("")
	md.line("| tool | verdict | claimed | key | checks | evidence |")
	md.line("|---|---|---|---|---|---|")
	for _, t := range rows {
		md.linef("| `%s` | %s %s | %s | %s | %s | %s |", code(t.Tool), verdictIcon(t.Verdict), cell(string(t.Verdict)),
			cell(t.Claimed), cell(t.Key), cell(t.Verdicts), cell(t.Evidence))
	}
}

// Worst is the verdict that weighs most among ss: ERROR, FAIL, WARN,
// SKIP, PASS.
func Worst(ss ...check.Status) check.Status {
	rank := map[check.Status]int{check.PASS: 0, check.SKIP: 1, check.WARN: 2, check.FAIL: 3, check.ERROR: 4}
	out := check.PASS
	for _, s := range ss {
		if rank[s] > rank[out] {
			out = s
		}
	}
	return out
}
