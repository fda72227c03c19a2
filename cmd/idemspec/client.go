package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/internal/fakename"
	"github.com/idemspec/idemspec/reports"
	"github.com/idemspec/idemspec/scenarios"
	"github.com/idemspec/idemspec/targets"
)

func init() {
	register(command{use: "client", summary: fmt.Sprintf("judge a client command (%s), or with --workflow a job's agent (%s), against the reference server, or with --target unmodified against the API a target file describes, behind Toxiproxy",
		scenarios.Span(scenarios.ClientGroup), scenarios.Span(scenarios.WorkflowGroup)), define: clientCommand})
}

type clientFlags struct {
	suiteFlags
	command        string
	budget         int
	deadline       time.Duration
	attemptTimeout time.Duration
	slack          time.Duration
	keyIn          string
	mcp            mcpClientFlags
	workflow       bool
	target         targetClientFlags
}

func clientCommand(fs *pflag.FlagSet) body {
	f := &clientFlags{}
	fs.StringVar(&f.command, "cmd", "", "the client `COMMAND`, run with sh -c once per check (see docs/CLIENT-CONTRACT.md)")
	f.register(fs, `a further Ginkgo label filter within the client checks, e.g. "C6"`)
	f.budget = 3
	intFlag(fs, &f.budget, "attempt-budget", 1, 100, "the most create requests the client may send in one run (1..100)")
	fs.DurationVar(&f.deadline, "deadline", 5*time.Second, "the client must exit within this; it is killed at the deadline plus --slack")
	fs.DurationVar(&f.attemptTimeout, "attempt-timeout", time.Second, "the bound on one request suggested to the client")
	fs.DurationVar(&f.slack, "slack", time.Second, "start-up and scheduling time allowed past the deadline")
	fs.StringVar(&f.keyIn, "key-in", targets.KeyInHeader, "where the reference server takes the key: header, body or query")
	fs.BoolVar(&f.workflow, "workflow", false, "give the command a job of several steps (upload, record, link, read) instead of one create, and judge it by "+scenarios.Span(scenarios.WorkflowGroup))
	f.mcp.register(fs)
	f.target.register(fs)
	return func(_ []string, stdout, stderr io.Writer) int {
		// Every way in runs inside one lifecycle, begun before anything
		// is loaded, started or connected: signals, --timeout, the
		// redactor and the reports are its, whatever the mode.
		l := begin(f.timeout)
		defer l.end()
		if err := f.validate(); err != nil {
			return fail(stderr, err)
		}
		if err := f.target.validate(fs, f); err != nil {
			return fail(stderr, err)
		}
		// One --target: over --mcp the real MCP server's mcp: file, else
		// the API's target file.
		f.mcp.target = f.target.file
		// The values of the command's ${NAME}s are secrets, as mcp's
		// --cmd's are: a token the program prints is redacted everywhere.
		if err := l.commandSecrets(f.command); err != nil {
			return fail(stderr, err)
		}
		if f.mcp.on || len(f.mcp.commandEnv)+len(f.mcp.urlEnv) > 0 {
			if err := f.mcp.validate(fs); err != nil {
				return fail(stderr, err)
			}
			if f.mcp.target != "" {
				return f.executeMCPTarget(l, stdout, stderr)
			}
			return f.executeMCP(l, stdout, stderr)
		}
		if f.target.file != "" {
			return f.executeTarget(l, stdout, stderr)
		}
		return f.execute(l, stdout, stderr)
	}
}

func (f *clientFlags) validate() error {
	switch {
	case strings.TrimSpace(f.command) == "":
		return fmt.Errorf("--cmd is required: the client command to judge")
	case f.deadline <= 0 || f.attemptTimeout <= 0 || f.slack < 0:
		return fmt.Errorf("--deadline and --attempt-timeout must be positive, --slack not negative")
	case f.keyIn != targets.KeyInHeader && f.keyIn != targets.KeyInBody && f.keyIn != targets.KeyInQuery:
		return fmt.Errorf("--key-in %q: must be header, body or query", f.keyIn)
	case f.attemptTimeout > f.deadline:
		return fmt.Errorf("--attempt-timeout %v is longer than --deadline %v", f.attemptTimeout, f.deadline)
	case f.workflow && f.deadline+f.slack > scenarios.MaxJobRun:
		return fmt.Errorf("--deadline plus --slack is %v: at most %v with --workflow (a W check runs the program up to three times)", f.deadline+f.slack, scenarios.MaxJobRun)
	}
	return nil
}

func (f *clientFlags) execute(l *lifecycle, stdout, stderr io.Writer) int {
	target, server, err := fakename.StartReference(f.keyIn)
	if err != nil {
		return fail(stderr, err)
	}
	defer target.Close()
	l.adopt(target)
	env, err := harness.New(target, harness.DefaultSettings())
	if err != nil {
		return fail(stderr, err)
	}
	defer env.Close()
	ctx, cancel := context.WithTimeout(l.ctx, 5*time.Second)
	err = env.Preflight(ctx)
	cancel()
	if err != nil {
		return l.fail(stderr, l.cut(err, "reaching the reference server"))
	}
	state, err := os.MkdirTemp("", "idemspec-client-")
	if err != nil {
		return fail(stderr, err)
	}
	defer os.RemoveAll(state)
	sent := func() int { return len(server.Requests()) }
	return f.runChecks(l, &scenarios.ClientEnv{Env: env, Server: server, StateRoot: state}, sent,
		fmt.Sprintf("testing the client %q against the reference server", f.command), stdout, stderr)
}

// runChecks runs the client checks the flags select against ce, with
// the client command and its limits from the flags, inside the run's
// lifecycle l; sent counts the requests (or tool calls) the subject has
// seen, so that a program that ends before its first one is shown.
func (f *clientFlags) runChecks(l *lifecycle, ce *scenarios.ClientEnv, sent func() int, banner string, stdout, stderr io.Writer) int {
	l.adopt(ce.Env.Target)
	command := f.command
	if ce.Wire != nil || ce.InStateDir {
		// Each trial runs in a directory of its own: a path the command
		// names relative to where idemspec was started still names it.
		command = resolvePaths(command, "")
	}
	ce.Command, ce.Budget, ce.Deadline, ce.AttemptTimeout, ce.Slack = command, f.budget, f.deadline, f.attemptTimeout, f.slack
	l.watchPrograms(&ce.Clients, sent)
	scenarios.UseClient(ce)
	defer scenarios.UseClient(nil)
	filter := f.filter()
	if f.workflow && ce.Wire == nil {
		banner = fmt.Sprintf("testing the job agent %q against the reference server", f.command)
	}
	// SIGINT or SIGTERM stops every program under test at once (SIGTERM
	// to its process group, SIGKILL after a short grace), so the check
	// under way ends now and the reports follow; Ginkgo, listening too,
	// skips the rest. The run's time limit ends the check's context,
	// which stops its program the same way. Whatever is still running
	// when the run ends, a program a check abandoned on a second signal
	// included, is stopped before idemspec exits.
	finished, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		select {
		case <-l.sig.first.Done():
			ce.Clients.Stop(context.Cause(l.sig.first).Error())
		case <-finished:
			ce.Clients.Stop(errRunEnded.Error())
		}
	}()
	defer func() {
		close(finished)
		<-stopped
	}()
	return runSuite(suiteRun{
		lc: l, adoption: &f.adoption, env: ce.Env, target: ce.Env.Target, reportDir: f.reportDir, labelFilter: filter,
		seed: f.seed, strict: f.strict, verbose: f.verbose, quiet: f.quiet, noColor: f.noColor, client: true, workflow: f.workflow,
		banner: banner,
	}, stdout, stderr)
}

// filter is the label filter of the checks the flags select.
func (f *clientFlags) filter() string {
	filter := scenarios.ClientGroup
	if f.workflow {
		filter = scenarios.WorkflowGroup
	}
	if f.labelFilter != "" {
		filter += " && (" + f.labelFilter + ")"
	}
	return filter
}

// notRun writes the reports of a client run that ended before its first
// check, naming the subject (source: the file, "" for none).
func (f *clientFlags) notRun(l *lifecycle, name, source string, t *targets.Target, cause error, stdout, stderr io.Writer) int {
	meta := reports.Meta{LabelFilter: f.filter(), Strict: f.strict, Target: reports.Target{Name: name, Source: source}}
	if t != nil {
		meta.Target = reportTarget(t)
		for _, o := range t.Operations {
			meta.Operations = append(meta.Operations, o.Operation)
		}
	}
	return l.notRun(meta, true, f.reportDir, cause, stdout, stderr)
}
