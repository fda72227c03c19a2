package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/idemspec/idemspec/targets"
)

func init() {
	commands["validate"] = command{summary: "check a target file without sending anything", run: runValidate}
}

// runValidate loads a target file as run would, but starts nothing and
// sends nothing: exit 0 when it is good, 2 with file:line: field when not.
// It refuses what run refuses, a remote address without allow_remote
// included.
func runValidate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	allowRemote := fs.Bool("allow-remote", false, "allow addresses that are not loopback, as run --allow-remote does")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: idemspec validate [--allow-remote] FILE")
		return exitError
	}
	t, err := targets.LoadFile(fs.Arg(0))
	if err != nil {
		return fail(stderr, err)
	}
	if err := t.CheckRemote(*allowRemote); err != nil {
		return fail(stderr, err)
	}
	warn(stderr, t)
	fmt.Fprintf(stdout, "%s: ok: %s at %s (oracle %s, profile %s, key in %s)\n",
		fs.Arg(0), t.Name, t.Redact(t.BaseURL.Redacted()), t.Oracle.Kind(), t.Profile.Name, t.Key.Place())
	return exitOK
}

// warn prints what loading the target found questionable (run and
// validate print the same).
func warn(stderr io.Writer, t *targets.Target) {
	for _, w := range t.Warnings {
		fmt.Fprintf(stderr, "idemspec: warning: %s\n", w)
	}
}
