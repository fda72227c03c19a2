package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/harness/agent"
)

func init() {
	long := `The reference client of client mode, run by idemspec client (--cmd "idemspec agent"):
it reads its inputs from IDEMSPEC_* variables (docs/CLIENT-CONTRACT.md), and IDEMSPEC_SHAPE
says which program to be: one create, or (idemspec client --workflow) a job of several steps.

As an unmodified agent (a twin, for idemspec client --target): with --base-url-env NAME it
reads only the API's base URL from NAME (with --mcp: the server's command from
--mcp-command-env NAME, or its URL from --mcp-url-env NAME) and no IDEMSPEC_ variable.
It creates one record on the API of idemspec serve (examples/targets/process-reference.yaml)
with its own payload, draws its own key, keeps its journal in the working directory
(journal.db: a restart there resumes the operation, a finished one sends nothing), and is
bounded by --attempts, --deadline and --attempt-timeout. Each --bug keeps its defect.

It prints its result as JSON on its last stdout line and exits 0 SUCCEEDED, 1 FAILED,
3 UNKNOWN_RESULT, 2 bad input.

Mutant clients (--bug NAME; with --base-url-env, their twins fail the same checks):
`
	for _, m := range fakes.MutantsOf(fakes.OfClient) {
		long += fmt.Sprintf("  %-22s %s (caught by %v)\n", m.Name, m.Bug, m.CaughtBy())
	}
	long += "\nMutant agents of the workflow shape (idemspec client --workflow):\n"
	for _, m := range fakes.MutantsOf(fakes.OfWorkflow) {
		long += fmt.Sprintf("  %-22s %s (caught by %v)\n", m.Name, m.Bug, m.CaughtBy())
	}
	register(command{use: "agent", summary: "the reference client for idemspec client (reads its inputs from the environment)", long: long, define: agentCommand, envFlag: agentEnvFlag})
}

// ownFlags are the flags that make the agent an unmodified one, and
// ownBounds its bounds as one.
var (
	ownFlags  = []string{"base-url-env", "mcp-command-env", "mcp-url-env"}
	ownBounds = []string{"attempts", "deadline", "attempt-timeout"}
)

// agentEnvFlag keeps an unmodified agent from every IDEMSPEC_ variable,
// IDEMSPEC_<FLAG> ones too; and the reference client from its bounds'
// variables, whose names are those of `idemspec client`'s own flags
// (IDEMSPEC_DEADLINE, IDEMSPEC_ATTEMPT_TIMEOUT), inherited by the
// command it runs: the contract hands it its bounds in other variables.
func agentEnvFlag(fs *pflag.FlagSet, name string) bool {
	for _, f := range ownFlags {
		if fs.Changed(f) {
			return false
		}
	}
	return !slices.Contains(ownFlags, name) && !slices.Contains(ownBounds, name)
}

// agentCommand is the reference client of client mode: `idemspec client
// --cmd "idemspec agent"` must pass every client check, and each --bug
// must fail exactly its own. With --base-url-env (or, over MCP,
// --mcp-command-env or --mcp-url-env) it is the same client as an
// unmodified agent: only its inputs' Source differs.
func agentCommand(fs *pflag.FlagSet) body {
	bug := fs.String("bug", fakes.Reference, "a mutant client: reference, or one of the bugs above")
	token := fs.String("bearer", "", "send `TOKEN` as Authorization: Bearer TOKEN on every request, as an SDK does (the reference server files it under that token's tenant)")
	overMCP := fs.Bool("mcp", false, "the client over MCP, for idemspec client --mcp")
	own := agent.Own{API: fakes.ReferenceAPI, Dir: "."}
	fs.StringVar(&own.BaseURLEnv, "base-url-env", "", "be an unmodified agent: read the API's base URL from the variable `NAME`, and no IDEMSPEC_ variable")
	fs.StringVar(&own.MCPCommandEnv, "mcp-command-env", "", "with --mcp, be an unmodified agent: start the MCP server (stdio) with the command (sh -c) in the variable `NAME`")
	fs.StringVar(&own.MCPURLEnv, "mcp-url-env", "", "with --mcp, be an unmodified agent: reach the MCP server (streamable HTTP) at the URL in the variable `NAME`")
	fs.IntVar(&own.AttemptBudget, "attempts", 3, "an unmodified agent's most create requests per run")
	fs.DurationVar(&own.Deadline, "deadline", 10*time.Second, "an unmodified agent's bound on one run")
	fs.DurationVar(&own.AttemptTimeout, "attempt-timeout", 2*time.Second, "an unmodified agent's bound on one request")
	return func(_ []string, stdout, stderr io.Writer) int {
		src, err := agentSource(fs, own, *overMCP)
		if err != nil {
			return fail(stderr, err)
		}
		if *overMCP {
			return runMCPAgent(*bug, src, stdout, stderr)
		}
		if _, contract := src.(agent.Contract); contract {
			return runAgent(*bug, *token, stdout, stderr)
		}
		return runCreate(*bug, *token, src, stdout, stderr)
	}
}

// agentSource is where the agent's inputs come from: its own choices
// when a variable of its own is named, else idemspec's contract.
func agentSource(fs *pflag.FlagSet, own agent.Own, overMCP bool) (agent.Source, error) {
	mcpOwn := own.MCPCommandEnv != "" || own.MCPURLEnv != ""
	switch {
	case overMCP && own.BaseURLEnv != "":
		return nil, errors.New("--base-url-env is for the client over HTTP: with --mcp, name --mcp-command-env or --mcp-url-env")
	case !overMCP && mcpOwn:
		return nil, errors.New("--mcp-command-env and --mcp-url-env need --mcp")
	case own.MCPCommandEnv != "" && own.MCPURLEnv != "":
		return nil, errors.New("--mcp-command-env and --mcp-url-env: name one of them")
	case own.BaseURLEnv != "" || mcpOwn:
		return own, nil
	}
	for _, name := range ownBounds {
		if fs.Changed(name) {
			return nil, fmt.Errorf("--%s is an unmodified agent's (with --base-url-env, --mcp-command-env or --mcp-url-env): idemspec client hands the contract's bounds in IDEMSPEC_ variables", name)
		}
	}
	return agent.Contract{}, nil
}

// runAgent runs the shape the environment gives (IDEMSPEC_SHAPE): one
// create, or a job of several steps.
func runAgent(bug, token string, stdout, stderr io.Writer) int {
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
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return fakes.RunJob(ctx, j, m, token, stdout, stderr)
	case agent.ShapeCreate:
		return runCreate(bug, token, agent.Contract{}, stdout, stderr)
	default:
		return fail(stderr, fmt.Errorf("%s=%q: want %s or %s", agent.EnvShape, shape, agent.ShapeCreate, agent.ShapeWorkflow))
	}
}

// runCreate runs the client's one create with the inputs src gives.
func runCreate(bug, token string, src agent.Source, stdout, stderr io.Writer) int {
	m, err := fakes.LookupMutant(fakes.OfClient, bug)
	if err != nil {
		return fail(stderr, err)
	}
	in, err := src.HTTP()
	if err != nil {
		return fail(stderr, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return fakes.RunClient(ctx, in, m, token, stdout, stderr)
}
