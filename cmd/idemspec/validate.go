package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/idemspec/idemspec/targets"
)

func init() {
	register(command{use: "validate FILE", summary: "check a target file without sending anything", args: cobra.ExactArgs(1), define: validateCommand})
}

// validateCommand loads a target file as run would, but starts nothing and
// sends nothing: exit 0 when it is good, 2 when not, with every error,
// TODO and warning as file:line: field, in line order. A ${VAR} the
// environment does not set is named and let through: a file is checked
// without its secrets. It refuses what run refuses, a remote address
// without allow_remote included.
func validateCommand(fs *pflag.FlagSet) body {
	allowRemote := fs.Bool("allow-remote", false, "allow addresses that are not loopback, as run --allow-remote does")
	return func(args []string, stdout, stderr io.Writer) int {
		return validate(args[0], *allowRemote, stdout, stderr)
	}
}

func validate(file string, allowRemote bool, stdout, stderr io.Writer) int {
	t, err := targets.LoadFileWith(file, targets.LoadOptions{AllowUnset: true})
	if err != nil {
		return fail(stderr, toMCP(err))
	}
	// The findings first: a draft's TODOs are what its author reads,
	// whether or not its base_url may be tested.
	printFindings(stderr, t.Findings)
	if err := t.CheckRemote(allowRemote); err != nil {
		return fail(stderr, err)
	}
	fmt.Fprintf(stdout, "%s: ok: %s at %s (oracle %s, profile %s, key in %s)\n",
		file, t.Name, t.Address(), t.Oracle.Kind(), t.Profile.Name, t.Key.Place())
	if len(t.Unset) > 0 {
		fmt.Fprintf(stdout, "  unset: %s (run needs them)\n", strings.Join(t.Unset, ", "))
	}
	if len(t.Operations) == 0 {
		printSetup(stdout, "  ", t)
	}
	for _, o := range t.Operations {
		fmt.Fprintf(stdout, "  operation %s: %s %s (oracle %s, profile %s, key in %s)\n",
			o.Operation, o.Create.Method, t.Redact(o.Create.Path), o.Oracle.Kind(), o.Profile.Name, o.Key.Place())
		printSetup(stdout, "    ", o)
	}
	return exitOK
}

// printSetup lists the requests an action on a parent sends first.
func printSetup(stdout io.Writer, indent string, t *targets.Target) {
	for _, r := range t.Setup {
		fmt.Fprintf(stdout, "%ssetup %s: %s %s, once per marker\n", indent, r.Name, r.Method, t.Redact(r.Path.Root.String()))
	}
}

// warn prints what loading the target found questionable (run and
// validate print the same).
func warn(stderr io.Writer, t *targets.Target) {
	for _, w := range t.Warnings {
		fmt.Fprintf(stderr, "idemspec: warning: %s\n", w)
	}
}

// printFindings prints what loading a target file found, in line order:
// errors, TODOs and warnings (a TODO is a warning), and unset variables
// (a note: validate goes on without them). Several errors end with
// their count.
func printFindings(stderr io.Writer, found []targets.Finding) {
	errs, todos := 0, 0
	for _, f := range found {
		switch f.Kind {
		case targets.Problem:
			errs++
			fmt.Fprintf(stderr, "idemspec: %v\n", f)
		case targets.Unset:
			fmt.Fprintf(stderr, "idemspec: note: %v\n", f)
		default:
			if f.Kind == targets.ToDo {
				todos++
			}
			fmt.Fprintf(stderr, "idemspec: warning: %v\n", f)
		}
	}
	if errs > 1 || (errs > 0 && todos > 0) {
		summary := count(errs, "error")
		if todos > 0 {
			summary += ", " + count(todos, "TODO")
		}
		fmt.Fprintf(stderr, "idemspec: %s: %s\n", found[0].File, summary)
	}
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
