package mcptools

import (
	"context"
	"fmt"
	"io"
	"time"

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
// in every case. It returns the report (nil for a dry run). A URL must
// have passed the loopback rule (its target's CheckRemote) before.
func Audit(ctx context.Context, o Options, out io.Writer) (*reports.Report, error) {
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	started := time.Now()
	srv, session, where, err := start(ctx, o)
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	list, err := session.Tools(ctx)
	if err != nil {
		return nil, err
	}
	tools, how, err := Prepare(list, o.Settings)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.Source, err)
	}
	WritePlan(out, Plan(srv, tools, o.Settings), tools, how)
	if o.DryRun {
		return nil, nil
	}
	results := Run(ctx, srv, tools, o.Settings)
	run := reports.Run{Started: started.UTC(), DurationMS: reports.MS(time.Since(started)), Complete: ctx.Err() == nil}
	if ctx.Err() != nil {
		run.Incomplete = "the run's time limit (--timeout) ran out"
	}
	name := o.File.Name
	if name == "" {
		name = where
	}
	r := Report(results, tools, run, reports.Meta{Version: o.Version, Target: reports.Target{
		Name: name, Source: o.Source, BaseURL: where, Profile: "mcp", Oracle: "tool " + oracleName(tools),
	}})
	return &r, nil
}

// closer is a started server.
type closer interface {
	Server
	Close() error
}

// start starts the server the file describes and opens its session; it
// says where the server is, for the report.
func start(ctx context.Context, o Options) (closer, *mcp.Session, string, error) {
	if t := o.File.HTTP; t != nil {
		srv, err := StartHTTP(ctx, t, o.Dir, o.Settings)
		if err != nil {
			return nil, nil, "", err
		}
		return srv, srv.Session(), t.Redact(t.BaseURL.Redacted()), nil
	}
	srv := &mcp.Stdio{Command: o.File.MCP.Command, Env: o.File.MCP.EnvList(), Dir: o.File.MCP.Dir}
	session, err := srv.Start(ctx)
	if err != nil {
		srv.Close()
		return nil, nil, "", err
	}
	return srv, session, "stdio: " + o.File.MCP.Command, nil
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
	fmt.Fprintf(w, "MCP server: %d tools; oracle %s (%s)\n", len(tools), oracleName(tools), how)
	for _, p := range plan {
		a := p.Tool
		fmt.Fprintf(w, "\n  %s: %s", a.Tool.Name, a.Tool.Claim())
		if a.Key != "" {
			fmt.Fprintf(w, "; key %s", a.Key)
		}
		fmt.Fprintf(w, "\n    input schema: %s\n", a.Tool.Schema)
		for _, c := range p.Checks {
			switch {
			case c.Skip != "":
				fmt.Fprintf(w, "    %-3s SKIP: %s\n", c.Check.ID, c.Skip)
			case c.Calls == 0:
				fmt.Fprintf(w, "    %-3s judged from the declaration\n", c.Check.ID)
			default:
				fmt.Fprintf(w, "    %-3s up to %d calls: %s\n", c.Check.ID, c.Calls, c.Check.Title)
			}
		}
	}
}
