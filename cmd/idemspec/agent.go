package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/harness/agent"
)

func init() {
	long := "The reference client of client mode, run by idemspec client (--cmd \"idemspec agent\"):\nit reads its inputs from IDEMSPEC_* variables (docs/CLIENT-CONTRACT.md), and IDEMSPEC_SHAPE\nsays which program to be: one create, or (idemspec client --workflow) a job of several steps.\n\nMutant clients (--bug NAME):\n"
	for _, m := range fakes.MutantsOf(fakes.OfClient) {
		long += fmt.Sprintf("  %-22s %s (caught by %v)\n", m.Name, m.Bug, m.Catches)
	}
	long += "\nMutant agents of the workflow shape (idemspec client --workflow):\n"
	for _, m := range fakes.MutantsOf(fakes.OfWorkflow) {
		long += fmt.Sprintf("  %-22s %s (caught by %v)\n", m.Name, m.Bug, m.Catches)
	}
	register(command{use: "agent", summary: "the reference client for idemspec client (reads its inputs from the environment)", long: long, define: agentCommand})
}

// agentCommand is the reference client of client mode: `idemspec client
// --cmd "idemspec agent"` must pass every client check, and each --bug
// must fail exactly its own.
func agentCommand(fs *pflag.FlagSet) body {
	bug := fs.String("bug", fakes.Reference, "a mutant client: reference, or one of the bugs above")
	token := fs.String("bearer", "", "send `TOKEN` as Authorization: Bearer TOKEN on every request, as an SDK does (the reference server files it under that token's tenant)")
	overMCP := fs.Bool("mcp", false, "the client over MCP, for idemspec client --mcp")
	return func(_ []string, stdout, stderr io.Writer) int {
		if *overMCP {
			return runMCPAgent(*bug, stdout, stderr)
		}
		return runAgent(*bug, *token, stdout, stderr)
	}
}

// runAgent runs the shape the environment gives (IDEMSPEC_SHAPE): one
// create, or a job of several steps.
func runAgent(bug, token string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch shape := agent.Shape(); shape {
	case agent.ShapeWorkflow:
		m, err := fakes.LookupMutant(fakes.OfWorkflow, bug)
		if err != nil {
			return fail(stderr, err)
		}
		j, err := agent.JobFromEnv()
		if err != nil {
			return fail(stderr, err)
		}
		return fakes.RunJob(ctx, j, m, token, stdout, stderr)
	case agent.ShapeCreate:
		m, err := fakes.LookupMutant(fakes.OfClient, bug)
		if err != nil {
			return fail(stderr, err)
		}
		in, err := agent.FromEnv()
		if err != nil {
			return fail(stderr, err)
		}
		return fakes.RunClient(ctx, in, m, token, stdout, stderr)
	default:
		return fail(stderr, fmt.Errorf("%s=%q: want %s or %s", agent.EnvShape, shape, agent.ShapeCreate, agent.ShapeWorkflow))
	}
}
