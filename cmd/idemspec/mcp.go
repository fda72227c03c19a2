package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/idemspec/idemspec/reports"
	"github.com/idemspec/idemspec/scenarios/mcptools"
	"github.com/idemspec/idemspec/targets/mcp"
)

func init() {
	commands["mcp"] = command{summary: "audit an MCP server's tools for retry safety (docs/MCP.md)", run: runMCP}
}

// runMCP audits the tools of an MCP server started from --cmd or a
// target file with mcp:, and writes the four reports.
func runMCP(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	cmd := fs.String("cmd", "", "the command that starts the MCP server on stdio (run by sh -c)")
	target := fs.String("target", "", "a target file with mcp: (instead of --cmd)")
	oracle := fs.String("oracle", "", "the read-only tool that shows the state (default: the file's, else the first read-only tool that needs no argument)")
	out := fs.String("out", "idemspec-report", "the report directory")
	dry := fs.Bool("dry-run", false, "list the tools and what each check would call, and call nothing")
	burst := fs.Int("burst", 0, "identical calls in a burst (default: the file's, else 8)")
	timeout := fs.Duration("timeout", 5*time.Minute, "the whole audit's time limit")
	if ok, code := parseFlags(fs, args, stderr); !ok {
		return code
	}
	var f mcp.File
	source := *target
	switch {
	case (*cmd == "") == (*target == ""):
		return fail(stderr, "mcp: give --cmd or --target (one of them)")
	case *target != "":
		var err error
		if f, err = mcp.Load(*target); err != nil {
			return fail(stderr, err)
		}
	default:
		f.MCP.Command, source = *cmd, "--cmd "+*cmd
	}
	s := mcptools.Settings{Oracle: f.Oracle, Tools: f.Tools, Burst: f.Burst}
	if *oracle != "" {
		s.Oracle = mcp.Oracle{Tool: *oracle}
	}
	if *burst > 0 {
		s.Burst = *burst
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	r, err := mcptools.AuditStdio(ctx, mcptools.Options{File: f, Source: source, Settings: s, DryRun: *dry, Version: buildVersion(), Timeout: *timeout}, stdout)
	if err != nil {
		return fail(stderr, err)
	}
	if r == nil {
		return exitOK
	}
	paths, err := reports.WriteAll(*out, *r)
	if err != nil {
		return fail(stderr, err)
	}
	fmt.Fprintf(stdout, "\n%s: %d tools; %d pass, %d fail, %d warn, %d skip, %d error\n", r.Verdict(), len(r.Tools),
		r.Summary.Pass, r.Summary.Fail, r.Summary.Warn, r.Summary.Skip, r.Summary.Error)
	for _, t := range r.Tools {
		fmt.Fprintf(stdout, "  %-5s %-20s %s: %s\n", t.Verdict, t.Tool, t.Claimed, t.Verdicts)
	}
	for _, p := range paths {
		fmt.Fprintln(stdout, "wrote", p)
	}
	return r.ExitCode()
}
