package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/mcprelay"
	"github.com/idemspec/idemspec/scenarios"
	"github.com/idemspec/idemspec/targets"
	"github.com/idemspec/idemspec/targets/mcp"
)

// variableName is a variable name a shell can export.
var variableName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// dialLimit bounds starting (or reaching) the server and listing its
// tools.
const dialLimit = time.Minute

func (m *mcpClientFlags) validateTarget(fs *pflag.FlagSet) error {
	switch {
	case !m.on:
		return fmt.Errorf("--target, --mcp-command-env and --mcp-url-env go with --mcp here (client mode against a real MCP server)")
	case m.target == "":
		return fmt.Errorf("--mcp-command-env and --mcp-url-env need --target FILE: the MCP server the relay reaches")
	case len(m.commandEnv)+len(m.urlEnv) == 0:
		return fmt.Errorf("--target: give --mcp-command-env NAME (the client starts the relay as its stdio server) or --mcp-url-env NAME (it reaches the relay over streamable HTTP): the variable the client reads its server from")
	case fs.Changed("mcp-transport"):
		return fmt.Errorf("--mcp-transport is the reference server's: with --target, --mcp-command-env and --mcp-url-env say the transport")
	case fs.Changed("workflow"):
		return fmt.Errorf("--workflow and --mcp: a job runs over HTTP only")
	case fs.Changed("key-in"):
		return fmt.Errorf("--key-in applies to HTTP clients: with --mcp --target the key is the tool's key argument (tools.NAME.key in the file)")
	}
	for _, n := range append(append([]string(nil), m.commandEnv...), m.urlEnv...) {
		if !variableName.MatchString(n) {
			return fmt.Errorf("--mcp-command-env/--mcp-url-env %q: not a variable name (letters, digits and _, not starting with a digit)", n)
		}
	}
	return nil
}

// executeMCPTarget runs the client checks against the real MCP server
// the target file describes: the server's one session behind idemspec's
// relay, the unmodified client in front of it.
func (f *clientFlags) executeMCPTarget(l *lifecycle, stdout, stderr io.Writer) int {
	file, err := mcp.Load(f.mcp.target)
	if err != nil {
		return fail(stderr, err)
	}
	// mcp.command's and mcp.env's ${NAME}s are secrets here as in the
	// audit (idemspec mcp): the server's own words quote them.
	l.addSecrets(file.Secrets()...)
	name := file.Name
	if name == "" {
		name = f.mcp.target
	}
	if file.HTTP != nil {
		if err := file.HTTP.CheckRemote(file.AllowRemote); err != nil {
			return fail(stderr, err)
		}
	}
	for _, w := range file.Warnings() {
		fmt.Fprintln(stderr, "warning:", w)
	}
	// A signal or the time limit during the connect ends it: the server
	// it started is stopped, and the reports say why.
	ctx, cancel := context.WithTimeout(l.ctx, dialLimit)
	defer cancel()
	up, err := mcprelay.Dial(ctx, file)
	if err != nil {
		return f.notRun(l, name, f.mcp.target, nil, l.cut(fmt.Errorf("%s: the MCP server: %w", f.mcp.target, err), "connecting to the MCP server"), stdout, stderr)
	}
	defer up.Close()
	tools, err := up.Session().Tools(ctx)
	if err != nil {
		return f.notRun(l, name, f.mcp.target, nil, l.cut(fmt.Errorf("%s: %w", f.mcp.target, err), "listing the MCP server's tools"), stdout, stderr)
	}
	keys, err := file.KeyArguments(tools)
	if err != nil {
		return l.fail(stderr, err)
	}
	if err := oracleOffered(f.mcp.target, file.Oracle.Tool, tools); err != nil {
		return l.fail(stderr, err)
	}
	relay, err := mcprelay.Start(ctx, mcprelay.Options{Upstream: up, Keys: keys})
	if err != nil {
		return l.fail(stderr, l.cut(err, "starting the relay"))
	}
	defer relay.Close()
	state, err := os.MkdirTemp("", "idemspec-client-mcp-target-")
	if err != nil {
		return fail(stderr, err)
	}
	defer os.RemoveAll(state)
	// The checks run on the relay, not on lanes: the described target
	// only carries the run's name and secrets, and says whether a look-up
	// is offered (a tool declared read-only).
	target := targets.DescribeReference(strings.TrimSuffix(relay.URL(), "/mcp"), name)
	target.Cleanup, target.LookupPath = nil, ""
	for _, t := range tools {
		if t.ReadOnly {
			target.LookupPath = "{{.Key}}"
		}
	}
	env, err := harness.New(target, harness.DefaultSettings())
	if err != nil {
		return fail(stderr, err)
	}
	defer env.Close()
	self, err := os.Executable()
	if err != nil {
		return fail(stderr, fmt.Errorf("the relay command: %w", err))
	}
	subject := &scenarios.TargetMCP{
		Relay: relay, RelayCommand: shellQuote(self) + " serve --mcp --relay " + relay.StdioAddr(),
		CommandEnv: f.mcp.commandEnv, URLEnv: f.mcp.urlEnv, Oracle: file.Oracle, Keys: keys, ExitCodes: f.target.codes,
	}
	target.Oracle = subject
	sent := func() int { return len(relay.Calls()) }
	return f.runChecks(l, &scenarios.ClientEnv{Env: env, MCP: subject, StateRoot: state, InStateDir: true}, sent,
		fmt.Sprintf("testing the MCP client %q against the MCP server %s, through idemspec's relay", f.command, name), stdout, stderr)
}

// oracleOffered: the file's oracle tool is one of the server's, declared
// read-only (a tool that changes what it counts is no oracle).
func oracleOffered(path, oracle string, tools []mcp.Tool) error {
	if oracle == "" {
		return nil
	}
	for _, t := range tools {
		if t.Name == oracle {
			if !t.ReadOnly {
				return fmt.Errorf("%s: oracle.tool: %s is not declared read-only (readOnlyHint): reading it could change what it counts", path, oracle)
			}
			return nil
		}
	}
	var names []string
	for _, t := range tools {
		names = append(names, t.Name)
	}
	return fmt.Errorf("%s: oracle.tool: the server offers no tool %q (it offers: %s)", path, oracle, strings.Join(names, ", "))
}
