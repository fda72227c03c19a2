package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/idemspec/idemspec/harness/check"
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
	// file is the target file the run read ("": a built-in fake), whose
	// lines the findings point at.
	file string
	// previous is --previous: the report of the run to compare with.
	previous    string
	previousRun *reports.Report
}

// register adds the flags; --fail-on should is --strict under the name
// code-scanning tools use.
func (a *adoption) register(fs *pflag.FlagSet, strict *bool) {
	fs.StringVar(&a.accept, "accept", "", "an accepted-findings `FILE` (idemspec accept writes one): each FAIL or WARN it lists is ACCEPTED with its reason until its date; an expired or stale entry fails the run")
	fs.StringVar(&a.previous, "previous", "", "a previous run's `report.json` (the main branch's last): the terminal summary and report.md start with what is newly failing, fixed and still failing since")
	fs.Var(failOn{strict}, "fail-on", "`must`: a FAIL fails the run (the default); should: a WARN too (the same as --strict)")
}

// load reads the accepted-findings file, checking its operations against
// the target's; before any check runs, so a bad entry costs nothing.
func (a *adoption) load(target *targets.Target) error {
	if a == nil {
		return nil
	}
	if target != nil && !strings.HasPrefix(target.Source, "fake:") {
		a.file = target.Source
	}
	if a.previous != "" {
		prev, err := reports.ReadJSON(a.previous)
		if err != nil {
			return fmt.Errorf("--previous: %w", err)
		}
		a.previousRun = &prev
	}
	if a.accept == "" {
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

// judge points each check at the line of the target file it is about
// and applies the accepted findings to the run's report, as of today.
func (a *adoption) judge(r reports.Report) reports.Report {
	if a == nil {
		return r
	}
	locate(&r, a.file)
	if a.accept != "" {
		r = reports.Accept(r, a.accept, a.list, time.Now())
	}
	if a.previousRun != nil {
		r.Since = reports.Changes(*a.previousRun, r)
	}
	return r
}

// print says on the terminal what the accepted findings did: each
// ACCEPTED check with its reason and date, and each entry that fails
// the run.
func (a *adoption) print(w io.Writer, r reports.Report) {
	if a == nil {
		return
	}
	if os.Getenv("GITHUB_ACTIONS") == "true" {
		annotate(w, r)
	}
	if s := r.Since; s != nil {
		fmt.Fprintf(w, "since the previous run (%s):\n", console.Text(s.Run))
		for _, row := range []struct {
			what   string
			labels []string
		}{{"newly failing", s.NewlyFailing}, {"fixed", s.Fixed}, {"still failing", s.StillFailing}} {
			text := "none"
			if len(row.labels) > 0 {
				text = console.Text(strings.Join(row.labels, ", "))
			}
			fmt.Fprintf(w, "  %-14s %s\n", row.what, text)
		}
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

// annotate prints a GitHub Actions workflow command for each finding,
// so the job's page and the pull request show it at the target file's
// line: ::error for a FAIL, ::warning for a WARN, ::notice for an
// ACCEPTED one, and an ::error for each accepted-findings entry that
// fails the run.
func annotate(w io.Writer, r reports.Report) {
	for _, c := range r.Checks {
		kind := map[check.Status]string{check.FAIL: "error", check.WARN: "warning", check.ACCEPTED: "notice"}[c.Verdict]
		if kind == "" {
			continue
		}
		props := []string{"title=" + escapeProperty(fmt.Sprintf("idemspec %s %s", c.Verdict, c.Label()))}
		if l := c.Location; l != nil {
			props = append([]string{"file=" + escapeProperty(l.File), fmt.Sprintf("line=%d", l.Line)}, props...)
		}
		msg := c.Title + ": " + c.Reason
		if a := c.Accepted; a != nil {
			msg = fmt.Sprintf("accepted until %s (%s): %s", a.Until, a.Reason, msg)
		}
		if c.Fix != "" {
			msg = strings.TrimSuffix(msg, ".") + ". How to fix: " + c.Fix
		}
		fmt.Fprintf(w, "::%s %s::%s\n", kind, strings.Join(props, ","), escapeData(console.Text(msg)))
	}
	for _, m := range r.AcceptanceFailures() {
		fmt.Fprintf(w, "::error title=idemspec accepted findings::%s\n", escapeData(console.Text(m)))
	}
}

// escapeData and escapeProperty escape a workflow command's message and
// its properties as the GitHub Actions runner reads them back.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
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
