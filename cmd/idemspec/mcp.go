package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/spf13/pflag"

	"github.com/idemspec/idemspec/reports"
	"github.com/idemspec/idemspec/scenarios/mcptools"
	"github.com/idemspec/idemspec/targets/mcp"
)

func init() {
	register(command{use: "mcp", summary: "audit an MCP server's tools for retry safety (docs/MCP.md)", define: mcpCommand})
}

func mcpCommand(fs *pflag.FlagSet) body {
	var a mcpAudit
	fs.StringVar(&a.cmd, "cmd", "", "the `COMMAND` that starts the MCP server on stdio (run by sh -c)")
	fs.StringVar(&a.target, "target", "", "a target `FILE` with mcp: (instead of --cmd)")
	fs.StringVar(&a.oracle, "oracle", "", "the read-only `TOOL` that shows the state (default: the file's, else the first read-only tool that needs no argument)")
	fs.StringVar(&a.out, "report-dir", "idemspec-report", "where report.json, junit.xml, report.md and report.html are written")
	fs.BoolVar(&a.dry, "dry-run", false, "list the tools and what each check would call, and call nothing")
	fs.IntVar(&a.burst, "burst", 0, "identical calls in a burst (default: the file's, else 8)")
	fs.DurationVar(&a.timeout, "timeout", 5*time.Minute, "the whole audit's time limit")
	return func(_ []string, stdout, stderr io.Writer) int { return a.run(stdout, stderr) }
}

// mcpAudit is what idemspec mcp was asked to do.
type mcpAudit struct {
	cmd, target, oracle, out string
	dry                      bool
	burst                    int
	timeout                  time.Duration
}

// run audits the tools of an MCP server started from --cmd or a target
// file with mcp:, and writes the four reports.
func (a *mcpAudit) run(stdout, stderr io.Writer) int {
	var f mcp.File
	source := a.target
	switch {
	case (a.cmd == "") == (a.target == ""):
		return fail(stderr, "mcp: give --cmd or --target (one of them)")
	case a.target != "":
		var err error
		if f, err = mcp.Load(a.target); err != nil {
			return fail(stderr, err)
		}
	default:
		f.MCP.Command, source = a.cmd, "--cmd "+a.cmd
	}
	s := mcptools.Settings{Oracle: f.Oracle, Tools: f.Tools, Burst: f.Burst}
	if a.oracle != "" {
		s.Oracle = mcp.Oracle{Tool: a.oracle}
	}
	if a.burst > 0 {
		s.Burst = a.burst
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	r, err := mcptools.AuditStdio(ctx, mcptools.Options{File: f, Source: source, Settings: s, DryRun: a.dry, Version: buildVersion(), Timeout: a.timeout}, stdout)
	if err != nil {
		return fail(stderr, err)
	}
	if r == nil {
		return exitOK
	}
	paths, err := reports.WriteAll(a.out, *r)
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
