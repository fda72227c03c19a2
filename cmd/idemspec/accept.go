package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/idemspec/idemspec/internal/console"
	"github.com/idemspec/idemspec/internal/outfile"
	"github.com/idemspec/idemspec/reports"
	"github.com/idemspec/idemspec/targets"
)

func init() {
	register(command{
		use:     "accept",
		summary: "write an accepted-findings file (for --accept) from a run's report.json: every FAIL and WARN, with a reason and a last day",
		long: `Write an accepted-findings file from a run's report.json.

  idemspec accept --from idemspec-report/report.json --reason "PAY-123: fingerprint in Q1" --until 2027-01-31 --out .idemspec/accepted.yaml

Every FAIL and WARN of the run becomes an entry (check, operation, reason,
until); a finding the run already reported ACCEPTED keeps its own reason
and date. idemspec run --accept FILE then reports each as ACCEPTED and
does not fail on it until its date; an entry whose check passes fails the
run until it is removed, so the list only shrinks (docs/CI.md).`,
		define: acceptCommand,
	})
}

func acceptCommand(fs *pflag.FlagSet) body {
	from := fs.String("from", "", "the run's report.json (required)")
	reason := fs.String("reason", "", "why the findings are accepted: a ticket, a plan (required)")
	until := fs.String("until", "", "the last day the findings are accepted, YYYY-MM-DD (required)")
	out := fs.String("out", "", "write the file here (default: stdout)")
	return func(_ []string, stdout, stderr io.Writer) int {
		if *from == "" {
			return fail(stderr, "accept: --from REPORT.json is required: the report of the run whose findings are accepted")
		}
		r, err := reports.ReadJSON(*from)
		if err != nil {
			return fail(stderr, err)
		}
		b, err := reports.WriteAcceptances(r, *reason, *until)
		if err != nil {
			return fail(stderr, fmt.Errorf("accept: %w", err))
		}
		if *out == "" {
			stdout.Write(b)
			return exitOK
		}
		if err := outfile.WriteAtomic(*out, func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
			return fail(stderr, fmt.Errorf("accept: %w", err))
		}
		fmt.Fprintf(stdout, "accepted findings: %s\n", *out)
		return exitOK
	}
}

// adoption is what a CI job adds to a run: the findings it accepts for
// now (--accept) and which levels fail it (--fail-on).
type adoption struct {
	accept string
	list   []reports.Acceptance
}

// register adds the flags; --fail-on should is --strict under the name
// code-scanning tools use.
func (a *adoption) register(fs *pflag.FlagSet, strict *bool) {
	fs.StringVar(&a.accept, "accept", "", "an accepted-findings `FILE` (idemspec accept writes one): each FAIL or WARN it lists is ACCEPTED with its reason until its date; an expired or stale entry fails the run")
	fs.Var(failOn{strict}, "fail-on", "`must`: a FAIL fails the run (the default); should: a WARN too (the same as --strict)")
}

// load reads the accepted-findings file, checking its operations against
// the target's; before any check runs, so a bad entry costs nothing.
func (a *adoption) load(target *targets.Target) error {
	if a == nil || a.accept == "" {
		return nil
	}
	var ops []string
	if target != nil {
		for _, op := range target.Each() {
			ops = append(ops, op.Operation)
		}
	}
	list, err := reports.LoadAcceptances(a.accept, ops)
	if err != nil {
		return err
	}
	a.list = list
	return nil
}

// judge applies the accepted findings to the run's report, as of today.
func (a *adoption) judge(r reports.Report) reports.Report {
	if a == nil || a.accept == "" {
		return r
	}
	return reports.Accept(r, a.accept, a.list, time.Now())
}

// print says on the terminal what the accepted findings did: each
// ACCEPTED check with its reason and date, and each entry that fails
// the run.
func (a *adoption) print(w io.Writer, r reports.Report) {
	if a == nil || r.Acceptance == nil {
		return
	}
	for _, c := range r.Checks {
		if c.Accepted != nil {
			fmt.Fprintf(w, "ACCEPTED %-4s (a %s) until %s: %s\n", c.Label(), c.Accepted.Was, c.Accepted.Until, console.Text(c.Accepted.Reason))
		}
	}
	for _, m := range r.AcceptanceFailures() {
		fmt.Fprintf(w, "accepted findings: %s\n", console.Text(m))
	}
}

// failOn is --fail-on: which broken level fails the run.
type failOn struct{ strict *bool }

func (f failOn) String() string {
	if f.strict != nil && *f.strict {
		return "should"
	}
	return "must"
}

func (f failOn) Set(s string) error {
	switch strings.ToLower(s) {
	case "must":
	case "should":
		*f.strict = true
	default:
		return fmt.Errorf("want must or should")
	}
	return nil
}

func (failOn) Type() string { return "level" }
