package main

import (
	"flag"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/idemspec/idemspec/harness/check"
	_ "github.com/idemspec/idemspec/scenarios" // registers the checks it runs
)

func init() {
	commands["list"] = command{summary: "print the check catalogue (id, level, clause, title)", run: runList}
}

func runList(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	format := fs.String("format", "text", "text, or markdown (the conformance document, docs/CONFORMANCE.md)")
	if ok, code := parseFlags(fs, args, stderr); !ok {
		return code
	}
	switch *format {
	case "text":
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tLEVEL\tGROUP\tCLAUSE\tTITLE")
		for _, c := range check.All() {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", c.ID, c.Level, c.Group, c.Clause, c.Title)
		}
		tw.Flush()
	case "markdown":
		writeConformance(stdout)
	default:
		return fail(stderr, fmt.Errorf("list --format %q: want text or markdown", *format))
	}
	return exitOK
}
