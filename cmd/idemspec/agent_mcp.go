package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/harness/agent"
)

// runMCPAgent is the reference client over MCP (`idemspec agent --mcp`),
// on the Go SDK's client: `idemspec client --mcp --cmd "idemspec agent
// --mcp"` must pass every client check, and each --bug must fail exactly
// its own, over stdio and over streamable HTTP. src gives the server and
// the create's arguments: idemspec's contract, or the agent's own.
func runMCPAgent(bug string, src agent.Source, stdout, stderr io.Writer) int {
	m, err := fakes.LookupMutant(fakes.OfClient, bug)
	if err != nil {
		return fail(stderr, err)
	}
	tools, in, err := src.MCP()
	if err != nil {
		return fail(stderr, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return fakes.RunMCPClient(ctx, tools, in, m, stdout, stderr)
}
