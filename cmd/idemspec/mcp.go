package main

import (
	"context"
	"errors"
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
	fs.StringVar(&a.url, "url", "", "the `URL` of a running MCP server's streamable HTTP endpoint (instead of --cmd)")
	fs.StringVar(&a.target, "target", "", "a target `FILE` with mcp: (instead of --cmd)")
	fs.BoolVar(&a.allowRemote, "allow-remote", false, "allow a server URL that is not on a loopback address (or say allow_remote: true in the target file)")
	fs.StringVar(&a.oracle, "oracle", "", "the read-only `TOOL` that shows the state (default: the file's, else the first read-only tool that needs no argument)")
	fs.StringVar(&a.out, "report-dir", "idemspec-report", "where report.json, junit.xml, report.md and report.html are written")
	fs.BoolVar(&a.dry, "dry-run", false, "list the tools and what each check would call, and call nothing")
	fs.IntVar(&a.burst, "burst", 0, "identical calls in a burst (default: the file's, else 8)")
	fs.DurationVar(&a.timeout, "timeout", 5*time.Minute, "the whole audit's time limit")
	return func(_ []string, stdout, stderr io.Writer) int { return a.run(stdout, stderr) }
}

// mcpAudit is what idemspec mcp was asked to do.
type mcpAudit struct {
	cmd, url, target, oracle, out string
	dry, allowRemote              bool
	burst                         int
	timeout                       time.Duration
}

// run audits the tools of an MCP server started from --cmd, reached at
// --url, or described by a target file with mcp:, and writes the four
// reports.
func (a *mcpAudit) run(stdout, stderr io.Writer) int {
	f, source, err := a.file()
	if err != nil {
		return fail(stderr, err)
	}
	if f.HTTP != nil {
		if err := f.HTTP.CheckRemote(a.allowRemote); err != nil {
			return fail(stderr, err)
		}
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
	r, err := mcptools.Audit(ctx, mcptools.Options{File: f, Source: source, Settings: s, DryRun: a.dry, Version: buildVersion(), Timeout: a.timeout, Dir: a.out}, stdout)
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

// file is the server to audit, from whichever of --cmd, --url and
// --target was given (exactly one), and how to name it.
func (a *mcpAudit) file() (mcp.File, string, error) {
	given := 0
	for _, v := range []string{a.cmd, a.url, a.target} {
		if v != "" {
			given++
		}
	}
	switch {
	case given != 1:
		return mcp.File{}, "", errors.New("mcp: give --cmd, --url or --target (one of them)")
	case a.target != "":
		f, err := mcp.Load(a.target)
		return f, a.target, err
	case a.url != "":
		f, err := mcp.ForURL(a.url)
		return f, "--url " + a.url, err
	}
	return mcp.File{MCP: mcp.Endpoint{Command: a.cmd}}, "--cmd " + a.cmd, nil
}
