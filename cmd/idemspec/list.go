package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/internal/fakename"
	_ "github.com/idemspec/idemspec/scenarios" // registers the checks it runs
)

func init() {
	register(command{use: "list", summary: "print the check catalogue, or with --fakes the built-in fakes and mutants", define: listCommand})
}

func listCommand(fs *pflag.FlagSet) body {
	format := fs.String("format", "text", "text, or markdown (the conformance document, docs/CONFORMANCE.md)")
	fakesOnly := fs.Bool("fakes", false, "list the built-in fakes (targets fake:NAME), mutant clients and job agents (idemspec agent --bug NAME) and MCP servers (idemspec serve --mcp --mutant NAME) instead")
	return func(_ []string, stdout, stderr io.Writer) int {
		if *fakesOnly {
			listFakes(stdout)
			return exitOK
		}
		return listChecks(*format, stdout, stderr)
	}
}

func listChecks(format string, stdout, stderr io.Writer) int {
	switch format {
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
		return fail(stderr, fmt.Errorf("list --format %q: want text or markdown", format))
	}
	return exitOK
}

// listFakes prints one line per built-in fake: the servers a target names
// as fake:NAME, the clients idemspec agent plays with --bug NAME and the
// MCP servers idemspec serve --mcp plays, each mutant with the checks that
// must catch it.
func listFakes(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tFAILS\tBUG")
	fmt.Fprintf(tw, "fake:%s\t-\tnone: the correct server, which passes every check\n", fakename.Reference)
	for _, m := range fakename.MutantsOf(fakename.OfServer) {
		fails := strings.Join(m.CaughtBy(), ",")
		if len(m.Multi) > 0 {
			fails = strings.TrimPrefix(fails+" ", " ") + "(instances=2: " + strings.Join(m.Multi, ",") + ")"
		}
		fmt.Fprintf(tw, "fake:%s\t%s\t%s\n", m.Name, fails, m.Bug)
	}
	fmt.Fprintln(tw, "\t\t")
	fmt.Fprintln(tw, "CLIENT\tFAILS\tBUG")
	fmt.Fprintf(tw, "--bug %s\t-\tnone: the correct client, which passes every client check\n", fakename.Reference)
	for _, m := range fakename.MutantsOf(fakename.OfClient) {
		fmt.Fprintf(tw, "--bug %s\t%s\t%s\n", m.Name, strings.Join(m.CaughtBy(), ","), m.Bug)
	}
	fmt.Fprintln(tw, "\t\t")
	fmt.Fprintln(tw, "WORKFLOW AGENT\tFAILS\tBUG")
	fmt.Fprintf(tw, "--workflow --bug %s\t-\tnone: the correct job agent, which passes every workflow check\n", fakename.Reference)
	for _, m := range fakename.MutantsOf(fakename.OfWorkflow) {
		fmt.Fprintf(tw, "--workflow --bug %s\t%s\t%s\n", m.Name, strings.Join(m.CaughtBy(), ","), m.Bug)
	}
	fmt.Fprintln(tw, "\t\t")
	fmt.Fprintln(tw, "MCP SERVER\tFAILS\tBUG")
	fmt.Fprintf(tw, "--mcp --mutant %s\t-\tnone: the reference MCP server, which passes or warns exactly as designed\n", fakename.Reference)
	for _, m := range fakename.MutantsOf(fakename.OfMCP) {
		fmt.Fprintf(tw, "--mcp --mutant %s\t%s\t%s\n", m.Name, strings.Join(m.CaughtBy(), ","), m.Bug)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nA server fake takes options: fake:NAME?OPTION=VALUE&... (see docs/REFERENCE-SERVER.md);")
	fmt.Fprintln(w, "idemspec serve --mutant NAME serves one as a process, idemspec client --cmd \"idemspec agent --bug NAME\" judges a client,\nidemspec client --workflow --cmd \"idemspec agent --bug NAME\" a job's agent, idemspec mcp --cmd \"idemspec serve --mcp --mutant NAME\" audits an MCP server.")
}
