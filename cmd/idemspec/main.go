package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/idemspec/idemspec/internal/console"
	"github.com/idemspec/idemspec/targets"
)

// version is set at build time with -ldflags "-X main.version=..."; see
// buildVersion for what is reported without it.
var version = devVersion

// body is a command's work once its flags are parsed: it gets the
// positional arguments and returns the exit code.
type body func(args []string, stdout, stderr io.Writer) int

// command is one subcommand. Each lives in its own file and registers
// itself from an init function; define declares its flags on fs, bound to
// variables of its own, and returns the work that reads them.
type command struct {
	use     string // the name, then the positional arguments as help shows them
	summary string
	long    string               // the help text above the flags ("": summary)
	args    cobra.PositionalArgs // nil: no positional arguments
	define  func(fs *pflag.FlagSet) body
	// envFlag says whether the flag name may come from its IDEMSPEC_
	// variable, once the command line is parsed (nil: every flag may).
	envFlag func(fs *pflag.FlagSet, name string) bool
}

var commands []command

func register(c command) { commands = append(commands, c) }

// Exit codes.
const (
	exitOK        = 0
	exitViolation = 1
	exitError     = 2
)

// envPrefix names the environment variables that stand in for flags:
// --report-dir is IDEMSPEC_REPORT_DIR. A flag on the command line wins.
const envPrefix = "IDEMSPEC_"

func main() {
	// rapid (used by the property specs) calls testing.Short(), which
	// panics outside `go test` unless the testing flags are registered
	// and flag.CommandLine was parsed. The commands parse their own
	// flags; the command line's stay empty (rapid's knobs are set from
	// idemspec's flags, see property.Config).
	testing.Init()
	flag.CommandLine.Parse(nil)
	os.Exit(execute(os.Args[1:], os.Stdout, os.Stderr))
}

// execute runs the command args name and returns the exit code: help
// goes to stdout and exits 0, a usage error exits 2 with one line saying
// what was wrong and where to read more.
func execute(args []string, stdout, stderr io.Writer) int {
	code := exitOK
	root := newRoot(stdout, stderr, &code)
	root.SetArgs(longFlags(root, args))
	if cmd, err := root.ExecuteC(); err != nil {
		fmt.Fprintf(stderr, "idemspec: %v\nRun '%s --help' for usage.\n", err, cmd.CommandPath())
		return exitError
	}
	return code
}

func newRoot(stdout, stderr io.Writer, code *int) *cobra.Command {
	root := &cobra.Command{
		Use:   "idemspec",
		Short: "fault-injection conformance testing for idempotency",
		Long: `idemspec: fault-injection conformance testing for idempotency.

It drives an API through an embedded Toxiproxy while it loses responses,
adds latency, resets connections, restarts and crashes the server and sends
tight same-key bursts, and judges whether retries stay safe.

Every flag can also be set by an environment variable: IDEMSPEC_ and the
flag's name in capitals, dashes as underscores (--report-dir is
IDEMSPEC_REPORT_DIR). A flag on the command line wins.

Exit codes: 0 all checks pass, 1 a violation, 2 a configuration or
execution error.`,
		Version:       buildVersion(),
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetVersionTemplate("idemspec {{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return err })
	for _, c := range commands {
		name, _, _ := strings.Cut(c.use, " ")
		long := c.long
		if long == "" {
			long = c.summary
		}
		cmd := &cobra.Command{Use: c.use, Short: c.summary, Long: long, Args: c.args}
		if cmd.Args == nil {
			cmd.Args = cobra.NoArgs
		}
		cmd.Flags().SortFlags = false
		work := c.define(cmd.Flags())
		completeFlags(cmd)
		cmd.RunE = func(cmd *cobra.Command, args []string) error {
			takes := func(string) bool { return true }
			if c.envFlag != nil {
				takes = func(name string) bool { return c.envFlag(cmd.Flags(), name) }
			}
			if err := flagsFromEnv(cmd.Flags(), os.LookupEnv, takes); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if err := durationsInRange(cmd.Flags()); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			*code = work(args, stdout, stderr)
			return nil
		}
		root.AddCommand(cmd)
	}
	return root
}

// flagsFromEnv sets each flag the command line left alone, and the
// command takes from the environment, from its IDEMSPEC_* variable, if
// set.
func flagsFromEnv(fs *pflag.FlagSet, lookup func(string) (string, bool), takes func(flag string) bool) error {
	var errs []error
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Changed || f.Name == "help" || !takes(f.Name) {
			return
		}
		name := envName(f.Name)
		if v, ok := lookup(name); ok {
			if err := fs.Set(f.Name, v); err != nil {
				errs = append(errs, fmt.Errorf("%s=%q (for --%s): %v", name, v, f.Name, err))
			}
		}
	})
	return errors.Join(errs...)
}

// maxFlagDuration bounds every duration flag. idemspec adds its
// durations together and to others, and multiplies some: a deadline and
// its slack, a request timeout and a target's in-progress timeout
// doubled for a wait at the search's gate, and, the largest, S6's
// resumed client given up to 201 request timeouts. Past 292 years a sum
// wraps to a negative duration, and a wait meant to be long ends at
// once; 201 years is still short of that.
const maxFlagDuration = 365 * 24 * time.Hour

// durationsInRange refuses a duration flag whose value, added to
// idemspec's other durations, could overflow: naming the flag is the
// whole diagnosis, where an overflow shows up far away as a kill after
// milliseconds blamed on something else.
func durationsInRange(fs *pflag.FlagSet) error {
	var errs []error
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Value.Type() != "duration" {
			return
		}
		d, err := fs.GetDuration(f.Name)
		if err == nil && (d > maxFlagDuration || d < -maxFlagDuration) {
			errs = append(errs, fmt.Errorf("--%s %s: too long (at most %s, a year): idemspec adds it to its other durations, and the sum would overflow", f.Name, f.Value, maxFlagDuration))
		}
	})
	return errors.Join(errs...)
}

// envName is the variable that stands in for the flag name.
func envName(flag string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// longFlags rewrites the single-dash long flags Go's flag package took
// (-target x, -report-dir=y), which earlier scripts use, into the
// double-dash form pflag reads, for the flags the command knows; anything
// else (-v, values, arguments after --) is left as it is.
func longFlags(root *cobra.Command, args []string) []string {
	cmd, _, err := root.Find(args)
	if err != nil {
		return args
	}
	out := slices.Clone(args)
	for i, a := range out {
		if a == "--" {
			break
		}
		if len(a) < 3 || a[0] != '-' || a[1] == '-' {
			continue
		}
		name, _, _ := strings.Cut(a[1:], "=")
		if len(name) > 1 && cmd.Flags().Lookup(name) != nil {
			out[i] = "-" + a
		}
	}
	return out
}

// fail prints a plain error and returns the configuration-error exit
// code. A target file's refusal is every finding, one a line.
func fail(stderr io.Writer, err any) int {
	var fe *targets.FileError
	if e, ok := err.(error); ok && errors.As(e, &fe) {
		printFindings(stderr, fe.Findings)
		return exitError
	}
	// An error may quote a report, a server or a document: its control
	// characters are shown, never sent to the terminal.
	fmt.Fprintf(stderr, "idemspec: %s\n", console.Text(fmt.Sprint(err)))
	return exitError
}
