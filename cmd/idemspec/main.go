package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"testing"
)

// version is set at build time with -ldflags "-X main.version=..."; see
// buildVersion for what is reported without it.
var version = devVersion

// command is one subcommand. Each lives in its own file and registers
// itself in commands from an init function.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

var commands = map[string]command{}

// Exit codes.
const (
	exitOK        = 0
	exitViolation = 1
	exitError     = 2
)

func main() {
	// rapid (used by the property specs) calls testing.Short(), which
	// panics outside `go test` unless the testing flags are registered
	// and flag.CommandLine was parsed. Subcommands parse their own flag
	// sets; the command line's stays empty (rapid's knobs are set from
	// idemspec's flags, see property.Config).
	testing.Init()
	flag.CommandLine.Parse(nil)
	os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
}

func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		return exitOK
	}
	if args[0] == "version" || args[0] == "--version" {
		fmt.Fprintln(stdout, "idemspec", buildVersion())
		return exitOK
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "idemspec: unknown command %q\n\n", args[0])
		usage(stderr)
		return exitError
	}
	return cmd.run(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "idemspec: fault-injection conformance testing for idempotency")
	fmt.Fprintln(w, "\nUsage: idemspec COMMAND [flags]   (idemspec COMMAND -h for its flags)")
	fmt.Fprintln(w, "\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nExit codes: 0 all checks pass, 1 a violation, 2 a configuration or execution error.")
}

// parseFlags parses a subcommand's flags; -h prints them and exits 0, a
// bad flag exits 2 with the usage.
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) (ok bool, code int) {
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return false, exitOK
		}
		return false, exitError
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "idemspec %s: unexpected argument %q\n", fs.Name(), strings.Join(fs.Args(), " "))
		return false, exitError
	}
	return true, 0
}

// fail prints a plain error and returns the configuration-error exit code.
func fail(stderr io.Writer, err any) int {
	fmt.Fprintf(stderr, "idemspec: %v\n", err)
	return exitError
}
