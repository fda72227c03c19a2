package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/internal/fakename"
)

func init() {
	register(command{
		use:     "explain [ID]",
		summary: "say what a check asks, what idemspec does to test it, what a verdict rests on and how to pass it; with no ID, list the checks",
		args:    cobra.MaximumNArgs(1),
		define:  explainCommand,
	})
}

func explainCommand(*pflag.FlagSet) body {
	return func(args []string, stdout, stderr io.Writer) int {
		if len(args) == 0 {
			listGuidance(stdout)
			return exitOK
		}
		c, ok := findCheck(args[0])
		if !ok {
			return fail(stderr, fmt.Errorf("explain: no check %q: `idemspec explain` lists them", args[0]))
		}
		explain(stdout, c)
		return exitOK
	}
}

// findCheck finds a check by ID, in any case (s5b is S5b).
func findCheck(id string) (check.Entry, bool) {
	for _, c := range check.All() {
		if strings.EqualFold(c.ID, id) {
			return c, true
		}
	}
	return check.Entry{}, false
}

// listGuidance is `idemspec explain` alone: every check with the fix
// that passes it, one a line.
func listGuidance(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tLEVEL\tHOW TO PASS")
	for _, c := range check.All() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", c.ID, c.Level, c.Fix)
	}
	tw.Flush()
	fmt.Fprintln(w, "\n`idemspec explain ID` says more of one: the clause, what idemspec does, the evidence and the fix.")
}

// explain prints one check for the person who owns the API or the
// agent it judges.
func explain(w io.Writer, c check.Entry) {
	fmt.Fprintf(w, "%s (%s, %s): %s\n", c.ID, c.Level, c.Group, c.Title)
	verdict := "a FAIL"
	if c.Level != check.MUST {
		verdict = "a WARN (a failure with --strict or --fail-on should)"
	}
	for _, p := range []struct{ head, text string }{
		{"Clause", c.Clause + ". A broken " + string(c.Level) + " is " + verdict + "."},
		{"Why it matters", c.Why},
		{"What idemspec does", c.Stimulus},
		{"Evidence it needs", c.Proof},
		{"How to pass", c.Fix},
		{"Caught by", catchersText(c.ID)},
	} {
		if p.text == "" {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", p.head)
		for _, l := range wrapText(p.text, 74) {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
}

// catchersText names the mutants that must fail the check: each is the
// reference plus one bug of the kind the check catches.
func catchersText(id string) string {
	var names []string
	for _, m := range fakename.Mutants() {
		for _, caught := range m.CaughtBy() {
			if caught == id {
				names = append(names, m.Name+" ("+m.Bug+")")
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "the mutants " + strings.Join(names, "; ") + "."
}

// wrapText breaks text into lines of at most width characters, at
// spaces.
func wrapText(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
