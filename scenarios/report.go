package scenarios

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/reports"
)

// ComplianceReport builds the compliance report from a finished (or interrupted)
// run of the suite: the verdict and evidence each spec attached, in the
// catalogue's order. It lives here, beside the specs that attach them, so
// that package reports knows results only, never Ginkgo or the engine.
func ComplianceReport(r types.Report, m reports.Meta) reports.Report {
	run := reports.Run{
		Seed: r.SuiteConfig.RandomSeed, Started: r.StartTime.UTC(), DurationMS: reports.MS(r.RunTime),
		Complete:   !r.SuiteConfig.DryRun && len(r.SpecialSuiteFailureReasons) == 0,
		Incomplete: strings.Join(r.SpecialSuiteFailureReasons, "; "),
	}
	if r.SuiteConfig.DryRun && run.Incomplete == "" {
		run.Incomplete = "dry run"
	}
	timedOut := slices.ContainsFunc(r.SpecialSuiteFailureReasons, func(s string) bool { return strings.Contains(s, "Timeout") })
	if timedOut {
		run.Incomplete = "the run's time limit (--timeout) ran out"
	}
	selected, _ := types.ParseLabelFilter(m.LabelFilter)
	var checks []reports.CheckResult
	for _, s := range r.SpecReports {
		res, ok := ResultOf(s)
		if !ok {
			continue
		}
		if !run.Complete {
			res = unfinished(s, res, selected, timedOut)
		}
		c, _ := check.Get(res.Verdict.Check)
		checks = append(checks, reports.CheckResult{
			Entry: c, Operation: operationLabelOf(s.Labels()), Verdict: res.Verdict.Status, Reason: res.Verdict.Reason,
			Violations: res.Verdict.Violations, DurationMS: reports.MS(max(s.RunTime, res.Evidence.Search)), Evidence: res.Evidence,
		})
	}
	return reports.New(run, m, checks)
}

// unfinished says why a check of an interrupted run has no real verdict
// when the spec never ran: the specs after the interrupt are marked
// skipped by Ginkgo, as it marks the ones the label filter left out. (A
// spec an interrupt cut short is a SKIP already: ResultOf, which the
// terminal's lines use too.) When the run's time limit ran out, every
// check it cut short or never reached is ERROR: the harness could not
// judge it in the time it was given.
func unfinished(s types.SpecReport, res check.Result, selected types.LabelFilter, timedOut bool) check.Result {
	id := res.Verdict.Check
	skipped := s.State == types.SpecStateSkipped && !Judged(s) && selected != nil && selected(s.Labels())
	switch {
	case timedOut && skipped:
		res.Verdict = check.Errored(id, errors.New("not run: the run's time limit (--timeout) ran out"))
	case timedOut && s.State.Is(types.SpecStateInterrupted|types.SpecStateAborted|types.SpecStateTimedout) && (!Judged(s) || s.Failure.FailureNodeType == types.NodeTypeIt):
		res.Verdict = check.Errored(id, errors.New("not finished: the run's time limit (--timeout) ran out while it ran"))
	case skipped:
		res.Verdict = check.Skip(id, "not run: the run was interrupted")
	}
	return res
}

// NotRun is the report of a run that ended before its first check (each
// operation's, when m names operations): the
// target could not be loaded, started or reached, or the run was
// interrupted while it started. Each check the label filter selected (of
// the run's mode) is an ERROR that names the cause, so CI shows the same
// test cases as on a good day, each saying why it did not run.
func NotRun(m reports.Meta, client bool, started time.Time, cause error) reports.Report {
	keep, err := types.ParseLabelFilter(m.LabelFilter)
	if err != nil {
		keep = func([]string) bool { return true }
	}
	var checks []reports.CheckResult
	ops := m.Operations
	if len(ops) == 0 {
		ops = []string{""}
	}
	for _, op := range ops {
		for _, c := range Checks() {
			if ofClientMode(c.Group) != client || !keep(labels(c.Entry(), op)) || !InShard(m.Shard, op, c.ID) {
				continue
			}
			v := check.Errored(c.ID, fmt.Errorf("not run: %w", cause))
			checks = append(checks, reports.CheckResult{Entry: c.Entry(), Operation: op, Verdict: v.Status, Reason: v.Reason})
		}
	}
	run := reports.Run{Started: started.UTC(), DurationMS: reports.MS(time.Since(started)), Incomplete: cause.Error()}
	return reports.New(run, m, checks)
}
