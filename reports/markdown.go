package reports

import (
	"fmt"
	"io"
	"strings"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
)

// maxMarkdownHistory bounds the history table of one check in Markdown;
// the JSON and HTML reports hold every exchange.
const maxMarkdownHistory = 60

// WriteMarkdown writes the report as GitHub-flavoured Markdown: the run,
// a summary table of every check, then one section per check that did
// not pass (FAIL, WARN, ERROR) with its violations, the exchanges that
// show them as a Mermaid sequence diagram, and the full history folded.
func WriteMarkdown(w io.Writer, r Report) error {
	r = showControls(r)
	md := &markdown{}
	md.linef("# idemspec report: %s", inline(r.Target.Name))
	md.line("")
	icon := verdictIcon(check.Status(r.Verdict()))
	if r.Verdict() == "PASS" && r.Summary.Warn > 0 {
		icon = verdictIcon(check.WARN)
	}
	md.linef("**%s %s**: %s (%s)", icon, r.Verdict(), r.Headline(), summaryText(r.Summary))
	if !r.Run.Complete {
		md.linef("\n> [!WARNING]\n> This run is incomplete (%s): it holds only the checks that finished.", inline(r.Run.Incomplete))
	}
	md.since(r.Since)
	md.line("")
	md.line("| | |")
	md.line("|---|---|")
	md.linef("| target | %s (`%s`) |", cell(r.Target.Name), code(r.Target.Source))
	md.linef("| base URL | `%s` |", code(r.Target.BaseURL))
	md.linef("| profile, oracle | %s, %s |", cell(r.Target.Profile), cell(r.Target.Oracle))
	if r.Target.OracleEvidence != "" {
		md.linef("| oracle evidence | %s |", cell(r.Target.OracleEvidence))
	}
	md.linef("| run | `%s`, seed `%d`, %s |", code(r.Run.ID), r.Run.Seed, runFlagsText(r.Run))
	for _, l := range r.ShardLines() {
		md.linef("| shard | %s |", cell(l))
	}
	md.linef("| started | %s (%s) |", dateText(r.Run.Started), msText(r.Run.DurationMS))
	md.linef("| tool | %s %s, report schema `%s` |", cell(r.Tool.Name), cell(r.Tool.Version), code(r.Schema))
	md.tools(r.Tools) // an MCP tool audit's report starts with its tools
	md.acceptance(r)
	md.line("")
	md.matrix(r)
	for i, op := range r.Operations() {
		if i > 0 {
			md.line("")
		}
		md.checks(r.ChecksOf(op), op)
	}
	// FAIL first, then ERROR and WARN, each in catalogue order.
	for _, c := range byFinding(r.Checks) {
		if findingWorthy(c.Verdict) {
			md.finding(c, r.Run.ID)
		}
	}
	skipped := false
	for _, c := range r.Checks {
		if c.Verdict == check.SKIP {
			if !skipped {
				md.line("\n## Skipped\n")
				skipped = true
			}
			md.linef("- **%s**: %s", inline(c.Label()), inline(c.Reason))
		}
	}
	md.linef("\n---\nWritten by %s %s. The JSON report (`report.json`) holds every exchange.", inline(r.Tool.Name), inline(r.Tool.Version))
	_, err := io.WriteString(w, md.String())
	return err
}

// since is the short table of what changed from the previous run, at
// the top: what a reviewer of a pull request wants first.
func (md *markdown) since(s *Since) {
	if s == nil {
		return
	}
	md.line("")
	when := ""
	if !s.Started.IsZero() {
		when = ", " + dateText(s.Started)
	}
	md.linef("**Since the previous run** (`%s`%s):", code(s.Run), when)
	md.line("")
	md.line("| newly failing | fixed | still failing |")
	md.line("|---|---|---|")
	md.linef("| %s | %s | %s |", labelsCell(s.NewlyFailing), labelsCell(s.Fixed), labelsCell(s.StillFailing))
}

func labelsCell(labels []string) string {
	if len(labels) == 0 {
		return "none"
	}
	return cell(strings.Join(labels, ", "))
}

// acceptance is the run's accepted-findings file: what became of each
// entry, the expired and stale ones first, in a caution.
func (md *markdown) acceptance(r Report) {
	a := r.Acceptance
	if a == nil {
		return
	}
	md.line("")
	md.linef("## Accepted findings (`%s`)", code(a.File))
	if bad := r.AcceptanceFailures(); len(bad) > 0 {
		md.line("")
		md.line("> [!CAUTION]")
		md.line("> These entries fail the run:")
		for _, m := range bad {
			md.linef("> - %s", inline(m))
		}
	}
	md.line("")
	md.line("| entry | state | until | reason |")
	md.line("|---|---|---|---|")
	for _, e := range a.Entries {
		md.linef("| %s (line %d) | %s | %s | %s |", cell(e.label()), e.Line, cell(e.State), cell(e.Until), cell(e.Reason))
	}
}

// checks is the table of one operation's checks ("": the file's only
// one).
func (md *markdown) checks(cs []CheckResult, op string) {
	if op == "" {
		md.line("## Checks")
	} else {
		md.linef("## Checks of operation %s", inline(op))
	}
	md.line("")
	md.line("| ID | verdict | level | clause | should ... | time |")
	md.line("|---|---|---|---|---|---|")
	for _, c := range cs {
		// A report read back may come from anywhere: even the id, verdict
		// and level columns are escaped.
		id := cell(c.Label())
		if findingWorthy(c.Verdict) {
			id = fmt.Sprintf("[%s](#%s)", id, anchor(c))
		}
		md.linef("| %s | %s %s | %s | %s | %s | %s |", id, verdictIcon(c.Verdict), cell(string(c.Verdict)), cell(string(c.Level)),
			cell(c.Clause), cell(strings.TrimPrefix(c.Title, "should ")), msText(c.DurationMS))
	}
}

// matrix is the operations × checks table, when the target file has
// operations.
func (md *markdown) matrix(r Report) {
	rows := r.Matrix()
	if rows == nil {
		return
	}
	md.line("## Operations × checks")
	md.line("")
	head, rule := "| check |", "|---|"
	for _, op := range r.Operations() {
		head += " " + cell(op) + " |"
		rule += "---|"
	}
	md.line(head)
	md.line(rule)
	for _, row := range rows {
		line := "| " + cell(row.ID) + " |"
		for _, c := range row.Cells {
			switch {
			case c == nil:
				line += " - |"
			case findingWorthy(c.Verdict):
				line += fmt.Sprintf(" [%s %s](#%s) |", verdictIcon(c.Verdict), cell(string(c.Verdict)), anchor(*c))
			default:
				line += fmt.Sprintf(" %s %s |", verdictIcon(c.Verdict), cell(string(c.Verdict)))
			}
		}
		md.line(line)
	}
	md.line("")
}

// finding is the section of one check that did not pass; runID is the
// run's, which its keys begin with.
func (md *markdown) finding(c CheckResult, runID string) {
	md.line("")
	md.linef("## %s %s %s: %s", verdictIcon(c.Verdict), inline(c.Label()), inline(string(c.Verdict)), inline(c.Title))
	md.line("")
	md.linef("Level **%s**, clause %s, group %s, %s.", inline(string(c.Level)), inline(c.Clause), inline(c.Group), msText(c.DurationMS))
	md.line("")
	if a := c.Accepted; a != nil {
		md.linef("**Accepted until %s:** %s (a %s; accepted-findings entry at line %d).", inline(a.Until), inline(a.Reason), inline(string(a.Was)), a.Line)
		md.line("")
	}
	if len(c.Violations) == 0 {
		md.linef("%s", inline(c.Reason))
	}
	for _, v := range c.Violations {
		md.linef("- %s", inline(v.What))
		if v.Expected != "" {
			md.linef("  - expected: %s", inline(v.Expected))
		}
		if v.Observed != "" {
			md.linef("  - observed: %s", inline(v.Observed))
		}
		if seqs, more := capSeqs(v.Seqs, maxCitedExchanges); len(seqs) > 0 {
			refs := make([]string, len(seqs))
			for i, s := range seqs {
				refs[i] = fmt.Sprintf("#%d", s)
			}
			tail := ""
			if more > 0 {
				tail = fmt.Sprintf(" and %d more", more)
			}
			md.linef("  - exchanges: %s%s", strings.Join(refs, ", "), tail)
		}
	}
	if c.guided() {
		md.line("")
		md.linef("**Why it matters:** %s", inline(c.Why))
		md.line("")
		md.linef("**How to fix:** %s (`idemspec explain %s`)", inline(c.Fix), code(c.ID))
	}
	ev := c.Evidence
	if len(ev.Faults) > 0 || len(ev.Readings) > 0 || len(ev.Notes) > 0 || len(ev.Bursts) > 0 {
		md.line("")
	}
	for _, f := range ev.Faults {
		md.linef("- fault: %s", inline(f))
	}
	for _, r := range ev.Readings {
		md.linef("- oracle: %s", inline(readingLine(r)))
	}
	for _, b := range ev.Bursts {
		md.linef("- burst: %s", inline(burstLine(b)))
	}
	for _, n := range ev.Notes {
		md.linef("- note: %s", inline(n))
	}
	if len(ev.Steps) > 0 {
		md.steps(ev)
	}
	for _, t := range ev.Tables {
		md.line("")
		md.linef("**%s**", inline(t.Title))
		md.line("")
		md.linef("| %s |", strings.Join(cells(t.Columns), " | "))
		md.linef("|%s", strings.Repeat("---|", len(t.Columns)))
		for _, row := range t.Rows {
			md.linef("| %s |", strings.Join(cells(row), " | "))
		}
	}
	if d := sequenceDiagram(c); d != "" {
		md.line("")
		md.line("```mermaid")
		md.write(d)
		md.line("```")
	}
	if len(ev.History) > 0 {
		md.line("")
		md.linef("<details><summary>History: %d %s</summary>", len(ev.History), plural(len(ev.History), "exchange", "exchanges"))
		md.line("")
		md.line("| # | step | lane | key | payload | answer | time |")
		md.line("|---|---|---|---|---|---|---|")
		label := keyLabels(runID, historyKeys(ev.History))
		for i, x := range ev.History {
			if i == maxMarkdownHistory {
				md.linef("| | %d more in report.json | | | | | |", len(ev.History)-i)
				break
			}
			lane := x.Lane
			if x.Fault != "" {
				lane += " (" + x.Fault + ")"
			}
			md.linef("| %d | %s | %s | `%s` | `%s` | %s | %s |", x.Seq, cell(x.Step), cell(lane), code(label(x.Key)),
				code(x.Payload), cell(answerText(x)), durationText(x.Duration))
		}
		md.line("")
		md.line("</details>")
	}
}

// steps is a property's counterexample: one row per step, and the line
// that replays it.
func (md *markdown) steps(ev check.Evidence) {
	md.line("")
	md.linef("**Counterexample, shrunk to %d %s**", len(ev.Steps), plural(len(ev.Steps), "step", "steps"))
	md.line("")
	md.line("| # | action | key | payload | fault | outcome | expected | observed |")
	md.line("|---|---|---|---|---|---|---|---|")
	for _, st := range ev.Steps {
		observed := cell(st.Observed)
		for _, b := range st.Broken {
			observed += "<br>**broken:** " + cell(b)
		}
		md.linef("| %d | %s | %s | %s | %s | %s | %s | %s |", st.N, cell(st.Action), cell(st.Key), cell(st.Payload),
			cell(st.Fault), cell(st.Outcome), cell(st.Expected), observed)
	}
	if ev.Replay != "" {
		md.line("")
		md.linef("Replay: `%s`", code(ev.Replay))
	}
}

// burstLine summarises one burst's timing.
func burstLine(b history.Burst) string {
	s := fmt.Sprintf("%d requests on the %s lane", b.Size, b.Lane)
	if b.Fault != "" {
		s += " with " + b.Fault
	}
	s += fmt.Sprintf(", %d of %d ready before the release, released within %s", b.Ready, b.Size, durationText(b.ReleaseSpread))
	if b.ArrivalKnown {
		s += fmt.Sprintf(", arrived within %s", durationText(b.ArrivalSpread))
	}
	return s
}

// guided says whether a check's section shows why it matters and how to
// fix it: a finding that broke the check (FAIL, WARN, or either one
// accepted for now), from a catalogue
// that has the texts. An ERROR or a SKIP says nothing about the target.
func (c CheckResult) guided() bool {
	return (c.Verdict == check.FAIL || c.Verdict == check.WARN || c.Verdict == check.ACCEPTED) && (c.Why != "" || c.Fix != "")
}

// findingWorthy: the verdicts that get a section of their own.
func findingWorthy(s check.Status) bool {
	return s == check.FAIL || s == check.WARN || s == check.ERROR || s == check.ACCEPTED
}

// anchor is the GitHub heading anchor of a finding: lower case, spaces
// to dashes, punctuation dropped.
func anchor(c CheckResult) string {
	heading := fmt.Sprintf("%s %s: %s", c.Label(), c.Verdict, c.Title)
	var b strings.Builder
	b.WriteString("-") // the icon becomes a leading dash
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9'):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func verdictIcon(s check.Status) string {
	switch s {
	case check.PASS:
		return "✅"
	case check.FAIL:
		return "❌"
	case check.WARN:
		return "⚠️"
	case check.SKIP:
		return "⏭️"
	case check.ERROR:
		return "💥"
	case check.ACCEPTED:
		return "🔕"
	}
	return "⏸️" // INCOMPLETE
}

func summaryText(s Summary) string {
	text := fmt.Sprintf("%d %s: %d pass, %d fail, %d warn, %d skip, %d error",
		s.Total, plural(s.Total, "check", "checks"), s.Pass, s.Fail, s.Warn, s.Skip, s.Error)
	if s.Accepted > 0 {
		text += fmt.Sprintf(", %d accepted", s.Accepted)
	}
	return text
}

func runFlagsText(r Run) string {
	var parts []string
	if r.Strict {
		parts = append(parts, "strict")
	}
	if r.LabelFilter != "" {
		parts = append(parts, "label filter `"+code(r.LabelFilter)+"`")
	}
	if r.Complete {
		parts = append(parts, "complete")
	} else {
		parts = append(parts, "**incomplete**")
	}
	return strings.Join(parts, ", ")
}

// markdown accumulates lines.
type markdown struct{ strings.Builder }

func (md *markdown) line(s string) { md.WriteString(s + "\n") }

func (md *markdown) write(s string) { md.WriteString(s) }

func (md *markdown) linef(format string, args ...any) { md.line(fmt.Sprintf(format, args...)) }

// inline escapes text for running Markdown: no HTML, no emphasis or
// links from the target's own words, one line.
func inline(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
	return markdownEscaper.Replace(s)
}

// cell is inline text that also keeps a table's columns.
func cell(s string) string { return strings.ReplaceAll(inline(s), "|", `\|`) }

// code is text for a code span inside a table: no backtick can end the
// span early and no pipe can end the cell.
func code(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "`", "'").Replace(s)
	return strings.ReplaceAll(s, "|", `\|`)
}

var markdownEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"<", "&lt;", ">", "&gt;", "&", "&amp;",
)

// cells escapes every cell of a table row.
func cells(row []string) []string {
	out := make([]string, len(row))
	for i, c := range row {
		out[i] = cell(c)
	}
	return out
}
