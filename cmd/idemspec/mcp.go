package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/internal/console"
	"github.com/idemspec/idemspec/reports"
	"github.com/idemspec/idemspec/scenarios/mcptools"
	"github.com/idemspec/idemspec/targets"
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
	fs.Uint64Var(&a.seed, "seed", 0, "M9's random seed (0: from the clock); printed and stored in the report, it draws the same sequences again")
	return func(_ []string, stdout, stderr io.Writer) int { return a.run(stdout, stderr) }
}

// mcpAudit is what idemspec mcp was asked to do.
type mcpAudit struct {
	cmd, url, target, oracle, out string
	dry, allowRemote              bool
	burst                         int
	timeout                       time.Duration
	seed                          uint64
}

// run audits the tools of an MCP server started from --cmd, reached at
// --url, or described by a target file with mcp:, and writes the four
// reports.
func (a *mcpAudit) run(stdout, stderr io.Writer) int {
	// The audit's lifecycle begins before the server is started: SIGINT
	// or SIGTERM ends the audit as its time limit does, the check under
	// way stops, the server and everything it started are stopped, and
	// the reports are written, marked incomplete.
	l := begin(a.timeout)
	defer l.end()
	f, source, err := a.file()
	if err != nil {
		return fail(stderr, err)
	}
	if f.HTTP != nil {
		if err := f.HTTP.CheckRemote(a.allowRemote); err != nil {
			return fail(stderr, err)
		}
	}
	for _, w := range f.Warnings() {
		fmt.Fprintln(stderr, "warning:", w)
	}
	s := mcptools.Settings{Oracle: f.Oracle, Tools: f.Tools, Burst: f.Burst, Seed: a.seed, Replay: a.replay}
	if a.oracle != "" {
		s.Oracle.Tool = a.oracle // with the file's args, if it gives any
	}
	if a.burst > 0 {
		s.Burst = a.burst
	}
	if s.Seed == 0 {
		s.Seed = uint64(time.Now().UnixNano()) | 1
	}
	if !a.dry {
		fmt.Fprintf(stdout, "idemspec mcp: seed %d\n", s.Seed)
	}
	r, err := mcptools.Audit(l.sig.first, mcptools.Options{File: f, Source: source, Settings: s, DryRun: a.dry, Version: buildVersion(), Timeout: a.timeout, Dir: a.out}, stdout)
	if r == nil {
		if err != nil {
			return fail(stderr, err)
		}
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "idemspec: %s\n", console.Text(err.Error()))
	}
	paths, werr := reports.WriteAll(a.out, *r)
	if werr != nil {
		return fail(stderr, werr)
	}
	fmt.Fprintf(stdout, "\n%s: %d tools; %d pass, %d fail, %d warn, %d skip, %d error\n", r.Verdict(), len(r.Tools),
		r.Summary.Pass, r.Summary.Fail, r.Summary.Warn, r.Summary.Skip, r.Summary.Error)
	if !r.Run.Complete {
		fmt.Fprintf(stdout, "the audit is incomplete: %s\n", console.Line(r.Run.Incomplete))
	}
	width := len(check.ERROR)
	for _, t := range r.Tools {
		width = max(width, len(t.Verdict)) // NOT AUDITED
	}
	for _, t := range r.Tools {
		// The server named its tools: a name is one line of text, never
		// an escape sequence or a line of its own.
		fmt.Fprintf(stdout, "  %-*s %-20s %s: %s\n", width, t.Verdict, console.Line(t.Tool), console.Line(t.Claimed), console.Line(t.Verdicts))
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
	f, err := mcp.ForCommand(a.cmd)
	return f, "--cmd " + a.cmd, err
}

// replay is the command line that runs the audit again from seed: the
// same server, oracle and burst, so M9 draws the same sequences.
func (a *mcpAudit) replay(seed uint64) string {
	cmd := "idemspec mcp"
	for _, f := range [][2]string{{"--cmd", a.cmd}, {"--url", a.url}, {"--target", a.target}, {"--oracle", a.oracle}} {
		if f[1] != "" {
			cmd += " " + f[0] + " " + shellQuote(f[1])
		}
	}
	if a.burst > 0 {
		cmd += fmt.Sprintf(" --burst %d", a.burst)
	}
	if a.allowRemote {
		cmd += " --allow-remote"
	}
	return cmd + fmt.Sprintf(" --seed %d", seed)
}

// toMCP is the error of run and validate on a target file that
// describes an MCP server, which only idemspec mcp reads; other errors
// are err itself.
func toMCP(err error) error {
	var m *targets.MCPFileError
	if !errors.As(err, &m) {
		return err
	}
	return fmt.Errorf("%s describes an MCP server (mcp:): audit it with idemspec mcp --target %s (docs/MCP.md)", m.File, shellQuote(m.File))
}
