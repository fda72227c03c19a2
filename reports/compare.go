package reports

import (
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"

	"github.com/idemspec/idemspec/harness/check"
)

// Matrix compares runs: one row per check, one column per run (usually
// one target each), like the comparison tables of protocol test suites.
type Matrix struct {
	Columns []Column
	Rows    []Row
}

// Column is one run of the comparison.
type Column struct {
	Label   string // the target's name, made unique among the columns
	Report  Report
	Verdict string // the run's verdict: PASS, FAIL, INCOMPLETE or ERROR
}

// Row is one check across the runs.
type Row struct {
	check.Entry
	// Operation is the operation of a target file with operations:
	// (its ID then reads "S1 [refund]"), "" otherwise.
	Operation string
	Cells     []Cell // one per column, in column order
}

// Cell is one check's verdict in one run; Ran is false when the run has
// no such check (another version, another label filter).
type Cell struct {
	Verdict check.Status
	Reason  string
	Ran     bool
}

// Compare builds the matrix of the given runs, in the order given. Rows
// are every check any run has, in catalogue order.
func Compare(runs []Report) Matrix {
	var m Matrix
	seen := map[string]int{}
	for _, r := range runs {
		label := r.Target.Name
		if seen[label]++; seen[label] > 1 {
			label = fmt.Sprintf("%s (run %s)", r.Target.Name, r.Run.ID)
		}
		m.Columns = append(m.Columns, Column{Label: label, Report: r, Verdict: r.Verdict()})
	}
	rows := map[string]*Row{}
	for i, r := range runs {
		for _, c := range r.Checks {
			key := c.ID + "\x00" + c.Operation
			row, ok := rows[key]
			if !ok {
				row = &Row{Entry: c.Entry, Operation: c.Operation, Cells: make([]Cell, len(runs))}
				if c.Operation != "" {
					row.ID += " [" + c.Operation + "]"
				}
				rows[key] = row
			}
			reason := c.Reason
			if c.Accepted != nil {
				reason = acceptedText(c)
			}
			row.Cells[i] = Cell{Verdict: c.Verdict, Reason: reason, Ran: true}
		}
	}
	for _, row := range rows {
		m.Rows = append(m.Rows, *row)
	}
	slices.SortFunc(m.Rows, func(a, b Row) int {
		if a.Operation != b.Operation {
			return strings.Compare(a.Operation, b.Operation)
		}
		return check.CompareID(a.ID, b.ID)
	})
	return m
}

// Count is how many cells of column i have the verdict s.
func (m Matrix) Count(i int, s check.Status) int {
	n := 0
	for _, row := range m.Rows {
		if row.Cells[i].Ran && row.Cells[i].Verdict == s {
			n++
		}
	}
	return n
}

// WriteCompareMarkdown writes the matrix as a GitHub-flavoured table.
func WriteCompareMarkdown(w io.Writer, m Matrix) error {
	m = showControls(m)
	md := &markdown{}
	md.line("# idemspec comparison")
	md.line("")
	md.linef("%d %s, %d %s. A FAIL is a MUST broken, a WARN a SHOULD or MAY broken.",
		len(m.Columns), plural(len(m.Columns), "run", "runs"), len(m.Rows), plural(len(m.Rows), "check", "checks"))
	md.line("")
	header, rule := "| check | level | should ... |", "|---|---|---|"
	for _, c := range m.Columns {
		header += " " + cell(c.Label) + " |"
		rule += "---|"
	}
	md.line(header)
	md.line(rule)
	for _, row := range m.Rows {
		line := fmt.Sprintf("| %s | %s | %s |", cell(row.ID), cell(string(row.Level)), cell(strings.TrimPrefix(row.Title, "should ")))
		for _, c := range row.Cells {
			line += " " + cellText(c) + " |"
		}
		md.line(line)
	}
	line := "| **run** | | |"
	for _, c := range m.Columns {
		line += fmt.Sprintf(" %s **%s** |", verdictIcon(check.Status(c.Verdict)), cell(string(c.Verdict)))
	}
	md.line(line)
	md.line("")
	md.line("## Runs")
	md.line("")
	md.line("| column | target | run | seed | started | tool | checks |")
	md.line("|---|---|---|---|---|---|---|")
	for _, c := range m.Columns {
		r := c.Report
		md.linef("| %s | `%s` | `%s` | `%d` | %s | %s %s | %s |", cell(c.Label), code(r.Target.Source), code(r.Run.ID), r.Run.Seed,
			dateText(r.Run.Started), cell(r.Tool.Name), cell(r.Tool.Version), summaryText(r.Summary))
	}
	_, err := io.WriteString(w, md.String())
	return err
}

func cellText(c Cell) string {
	if !c.Ran {
		return "—"
	}
	return verdictIcon(c.Verdict) + " " + cell(string(c.Verdict))
}

// WriteCompareHTML writes the matrix as a self-contained HTML page.
func WriteCompareHTML(w io.Writer, m Matrix) error {
	m = showControls(m)
	return htmlTemplates.ExecuteTemplate(w, "compare.html", struct {
		Matrix
		CSS template.CSS
	}{m, style()})
}
