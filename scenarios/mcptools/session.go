package mcptools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/internal/console"
	"github.com/idemspec/idemspec/reports"
	"github.com/idemspec/idemspec/targets/mcp"
)

// Options is one audit, as `idemspec mcp` runs it.
type Options struct {
	File     mcp.File
	Source   string // the target file, or the --cmd flag
	Settings Settings
	DryRun   bool
	Version  string
	Timeout  time.Duration
	// Dir is where a managed process logs (the report directory).
	Dir string
}

// Audit starts the server (a stdio command, or the process: of a server
// at a URL, behind the lanes), lists its tools, prints the plan, and
// unless it is a dry run audits every tool; what it started is stopped
// in every case. It returns the report (nil for a dry run). A server
// that cannot be started or listed gets a report too, every check ERROR
// with the reason, returned with that reason as the error. The file's
// secrets are redacted from the plan and the report. A URL must have
// passed the loopback rule (its target's CheckRemote) before.
func Audit(ctx context.Context, o Options, out io.Writer) (*reports.Report, error) {
	interrupted := ctx
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	started := time.Now()
	plan := o.File.RedactWriter(out)
	defer plan.Flush()
	srv, list, err := discover(ctx, o)
	if srv != nil {
		defer srv.Close()
	}
	if err != nil {
		err = errors.New(o.File.Redact(err.Error()))
		if o.DryRun {
			return nil, err
		}
		r := Report(unreached(err), nil, o.run(started, interrupted, ctx), o.meta(nil))
		return &r, err
	}
	tools, how, err := Prepare(list, o.Settings)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.Source, err)
	}
	WritePlan(plan, Plan(srv, tools, o.Settings), tools, how)
	if o.DryRun {
		return nil, nil
	}
	results := Run(ctx, srv, tools, o.Settings)
	run := o.run(started, interrupted, ctx)
	if why := Unverified(results, tools); why != "" && run.Complete {
		run.Complete, run.Incomplete = false, why
	}
	r := Report(results, tools, run, o.meta(tools))
	return &r, nil
}

// where is the server as the report names it.
func (o Options) where() string {
	if t := o.File.HTTP; t != nil {
		return t.Redact(t.BaseURL.Redacted())
	}
	return "stdio: " + o.File.MCP.Command
}

// run is the report's record of the run: complete unless a signal or the
// time limit ended it.
func (o Options) run(started time.Time, interrupted, ctx context.Context) reports.Run {
	run := reports.Run{Started: started.UTC(), DurationMS: reports.MS(time.Since(started)), Complete: ctx.Err() == nil, Seed: int64(o.Settings.Seed)}
	switch {
	case interrupted.Err() != nil:
		// The caller's cause names the signal ("interrupted by SIGTERM").
		run.Incomplete = "interrupted by a signal"
		if cause := context.Cause(interrupted); !errors.Is(cause, context.Canceled) {
			run.Incomplete = cause.Error()
		}
	case ctx.Err() != nil:
		run.Incomplete = "the run's time limit (--timeout) ran out"
	}
	return run
}

func (o Options) meta(tools []Audited) reports.Meta {
	name := o.File.Name
	if name == "" {
		name = o.where()
	}
	return reports.Meta{Version: o.Version, Redact: o.File.Redact, Target: reports.Target{
		Name: name, Source: o.Source, BaseURL: o.where(), Profile: "mcp", Oracle: "tool " + oracleName(tools),
	}}
}

// discover starts the server and lists its tools, each answer bounded
// by Settings.StartTimeout. The server is returned whenever it was
// started, so that the caller stops it.
func discover(ctx context.Context, o Options) (closer, []mcp.Tool, error) {
	srv, session, err := start(ctx, o)
	if err != nil {
		return srv, nil, err
	}
	lctx, cancel := context.WithTimeout(ctx, o.Settings.startTimeout())
	defer cancel()
	list, err := session.Tools(lctx)
	if err != nil && lctx.Err() != nil && ctx.Err() == nil {
		err = fmt.Errorf("the server did not answer tools/list within %s: %w", o.Settings.startTimeout(), err)
	}
	return srv, list, err
}

// unreached is every check's ERROR when no tool could be listed.
func unreached(err error) []Result {
	var out []Result
	for _, c := range Checks() {
		out = append(out, Result{Check: c.Entry(), Verdict: check.Errored(c.ID, fmt.Errorf("no tool could be audited: %w", err))})
	}
	return out
}

// Unverified says why no hint of any tool was checked ("": at least one
// check that calls a tool reached a verdict on what it saw, PASS or
// FAIL). Checks judged from the declaration alone verify no hint.
func Unverified(results []Result, tools []Audited) string {
	if len(tools) == 0 {
		return "the server lists no tools: nothing was verified"
	}
	var reasons []string
	for _, r := range results {
		if c, ok := lookup(r.Check.ID); !ok || c.Run == nil {
			continue
		}
		switch r.Verdict.Status {
		case check.PASS, check.FAIL:
			return ""
		}
		if r.Verdict.Reason != "" && !slices.Contains(reasons, r.Verdict.Reason) && len(reasons) < 3 {
			reasons = append(reasons, r.Verdict.Reason)
		}
	}
	why := "no hint on any tool could be checked, so nothing was verified"
	if len(reasons) > 0 {
		why += " (" + strings.Join(reasons, "; ") + ")"
	}
	return why + ": name an oracle, a read-only tool whose answer shows the state (oracle: {tool: ...} in a target file, or --oracle TOOL), and give arguments the tools accept (tools: NAME: args: ...)"
}

// lookup finds a check of the audit by ID.
func lookup(id string) (*Check, bool) { return check.Find[*trial, Offered, Settings](id) }

// closer is a started server.
type closer interface {
	Server
	Close() error
}

// start starts the server the file describes and opens its session
// (initialize bounded by Settings.StartTimeout). The server is returned
// whenever it was started, so that the caller stops it.
func start(ctx context.Context, o Options) (closer, *mcp.Session, error) {
	if t := o.File.HTTP; t != nil {
		if err := os.MkdirAll(o.Dir, 0o755); err != nil {
			return nil, nil, fmt.Errorf("the report directory, where the process logs: %w", err)
		}
		srv, err := StartHTTP(ctx, t, o.Dir, o.Settings)
		if err != nil {
			return nil, nil, err
		}
		return srv, srv.Session(), nil
	}
	srv := &mcp.Stdio{Command: o.File.MCP.Command, Env: o.File.MCP.EnvList(), Dir: o.File.MCP.Dir}
	sctx, cancel := context.WithTimeout(ctx, o.Settings.startTimeout())
	defer cancel()
	session, err := srv.Start(sctx)
	if err != nil {
		if sctx.Err() != nil && ctx.Err() == nil {
			err = fmt.Errorf("the server did not answer initialize within %s: %w", o.Settings.startTimeout(), err)
		}
		return srv, nil, err
	}
	return srv, session, nil
}

func oracleName(tools []Audited) string {
	if len(tools) == 0 || tools[0].Oracle == "" {
		return "(none)"
	}
	return tools[0].Oracle
}

// WritePlan prints the tools as tools/list declared them and what each
// check will do to each.
func WritePlan(w io.Writer, plan []Planned, tools []Audited, how string) {
	fmt.Fprintf(w, "MCP server: %d tools; oracle %s (%s)\n", len(tools), console.Line(oracleName(tools)), console.Line(how))
	for _, p := range plan {
		a := p.Tool
		// What the server declared is one line each, escapes shown.
		fmt.Fprintf(w, "\n  %s: %s", console.Line(a.Tool.Name), console.Line(a.Tool.Claim()))
		if a.Key != "" {
			fmt.Fprintf(w, "; key %s", console.Line(a.Key))
		}
		fmt.Fprintf(w, "\n    input schema: %s\n", console.Line(string(a.Tool.Schema)))
		for _, c := range p.Checks {
			switch {
			case c.Skip != "":
				fmt.Fprintf(w, "    %-3s SKIP: %s\n", c.Check.ID, console.Line(c.Skip))
			case c.Calls == 0:
				fmt.Fprintf(w, "    %-3s judged from the declaration\n", c.Check.ID)
			default:
				fmt.Fprintf(w, "    %-3s up to %d calls: %s\n", c.Check.ID, c.Calls, c.Check.Title)
			}
		}
	}
}
