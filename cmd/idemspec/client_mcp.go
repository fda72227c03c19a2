package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/internal/fakename"
	"github.com/idemspec/idemspec/scenarios"
)

// mcpClientFlags are client mode's over MCP: the same checks, judged on
// the client's tool calls to the reference MCP server.
type mcpClientFlags struct {
	on        bool
	transport string
	// target (client mode's one --target, over --mcp), commandEnv and
	// urlEnv are the real server's mode (client_mcp_target.go).
	target     string
	commandEnv []string
	urlEnv     []string
}

const (
	mcpStdio = "stdio"
	mcpHTTP  = "http"
)

func (m *mcpClientFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&m.on, "mcp", false, "the client reaches the reference MCP server through its tools instead of HTTP (docs/MCP.md#agents-over-mcp)")
	fs.StringVar(&m.transport, "mcp-transport", mcpStdio, "with --mcp: stdio (the client starts the server with IDEMSPEC_MCP_COMMAND) or http (streamable HTTP at IDEMSPEC_MCP_URL)")
	fs.StringArrayVar(&m.commandEnv, "mcp-command-env", nil, "with --target: hand the client the relay as a stdio server command in this environment variable `NAME` (repeatable)")
	fs.StringArrayVar(&m.urlEnv, "mcp-url-env", nil, "with --target: hand the client the relay's streamable HTTP URL in this environment variable `NAME` (repeatable)")
}

func (m *mcpClientFlags) validate(fs *pflag.FlagSet) error {
	if m.target != "" || len(m.commandEnv)+len(m.urlEnv) > 0 {
		return m.validateTarget(fs)
	}
	switch {
	case m.transport != mcpStdio && m.transport != mcpHTTP:
		return fmt.Errorf("--mcp-transport %q: must be stdio or http", m.transport)
	case fs.Changed("workflow"):
		return fmt.Errorf("--workflow and --mcp: a job runs over HTTP only")
	case fs.Changed("key-in"):
		return fmt.Errorf("--key-in applies to HTTP clients: over --mcp the key is the create tool's idempotency_key argument")
	}
	return nil
}

// executeMCP runs the client checks against the reference MCP server,
// served from this process (mcpside): the client starts it over stdio
// through `idemspec serve --mcp --relay`, or reaches it over streamable
// HTTP through the fault proxy.
func (f *clientFlags) executeMCP(l *lifecycle, stdout, stderr io.Writer) int {
	state, err := os.MkdirTemp("", "idemspec-client-mcp-")
	if err != nil {
		return fail(stderr, err)
	}
	defer os.RemoveAll(state)
	// The lanes front the server's HTTP endpoint; the oracle reads its
	// state, and there is nothing to clean: the server lives and dies
	// with this run.
	target, side, err := fakename.StartReferenceMCP(state)
	if err != nil {
		return fail(stderr, err)
	}
	defer side.Close()
	env, err := harness.New(target, harness.DefaultSettings())
	if err != nil {
		return fail(stderr, err)
	}
	defer env.Close()
	mcp := &scenarios.ClientMCP{Side: side}
	if f.mcp.transport == mcpStdio {
		self, err := os.Executable()
		if err != nil {
			return fail(stderr, fmt.Errorf("the relay command: %w", err))
		}
		mcp.Command = shellQuote(self) + " serve --mcp --relay " + side.RelayAddr()
	}
	sent := func() int { return len(side.Requests()) }
	return f.runChecks(l, &scenarios.ClientEnv{Env: env, MCP: mcp, StateRoot: state}, sent,
		fmt.Sprintf("testing the MCP client %q (over %s) against the reference MCP server", f.command, f.mcp.transport), stdout, stderr)
}
