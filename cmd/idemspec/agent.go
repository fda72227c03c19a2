package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/harness/agent"
)

func init() {
	commands["agent"] = command{summary: "the reference client for `idemspec client` (reads its inputs from the environment)", run: runAgent}
}

// runAgent is the reference client of client mode: `idemspec client
// --cmd "idemspec agent"` must pass every client check, and each --bug
// must fail exactly its own.
func runAgent(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("agent", flag.ContinueOnError)
	bug := fs.String("bug", fakes.Reference, "a mutant client: reference, or one of the bugs below")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: idemspec agent [--bug NAME]   (run by `idemspec client`, inputs in IDEMSPEC_* variables)")
		fs.PrintDefaults()
		for _, m := range fakes.MutantsOf(fakes.OfClient) {
			fmt.Fprintf(stderr, "  %-22s %s (caught by %v)\n", m.Name, m.Bug, m.Catches)
		}
	}
	if ok, code := parseFlags(fs, args, stderr); !ok {
		return code
	}
	m, err := fakes.LookupMutant(fakes.OfClient, *bug)
	if err != nil {
		return fail(stderr, err)
	}
	in, err := agent.FromEnv()
	if err != nil {
		return fail(stderr, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return fakes.RunClient(ctx, in, m, stdout, stderr)
}
