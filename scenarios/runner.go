package scenarios

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/reports"
)

// The runner: it makes the Ginkgo specs from the registry, keeps what
// each concluded as a value, and hands the run back as results that
// package reports takes as they are. It is the checks' Ginkgo front end:
// the one place that holds the run in package state, because Ginkgo
// registers the specs when the package loads; each check's run is
// handed its subject and the run's Inputs as values.

// suite is the one run the specs serve: what they drive is set here
// before RunSpecs (Use, UseClient), and what they concluded is kept here
// until Results.
var suite struct {
	sync.Mutex
	env    *harness.Env
	opts   Options
	client *ClientEnv // client mode
	// verdicts are what the specs concluded, as values; outcome is the
	// run as the runner hands it back once the suite has ended.
	verdicts Verdicts
	outcome  Outcome
	// selected says which checks the label filter selected (set when
	// the suite begins).
	selected func(id string) bool
}

// Use sets the harness the specs drive and the run's options, whose
// Seed the caller hands Ginkgo too (SuiteConfig.RandomSeed). Call it
// before RunSpecs.
func Use(e *harness.Env, o Options) {
	suite.Lock()
	defer suite.Unlock()
	suite.env, suite.opts = e, o
	suite.verdicts = Verdicts{}
}

func current() (*harness.Env, Options) {
	suite.Lock()
	defer suite.Unlock()
	return suite.env, suite.opts
}

// The specs: one Describe per group, so Ginkgo randomises the groups'
// order with the seed, and one It per check, from the registry. A target
// with operations gets the whole tree once per operation, each driving
// its own Env: Ginkgo builds the tree when RunSpecs is called, after Use,
// so the operations are known here.
var _ = Describe("idemspec", func() {
	var groups []string
	for _, c := range Checks() {
		if !slices.Contains(groups, c.Group) {
			groups = append(groups, c.Group)
		}
	}
	e, o := current()
	tree := func(e *harness.Env) {
		// Each Env's checks share one property search (P1 and P2).
		in := o.inputs()
		in.search, in.Log = &sharedSearch{}, GinkgoWriter
		for _, g := range groups {
			Describe(g, func() {
				for _, c := range Checks() {
					if c.Group != g || !InShard(o.Shard, operationOf(e), c.ID) {
						continue
					}
					timeout := c.Timeout
					if timeout == 0 {
						timeout = specTimeout
					}
					run := trialSpec(c, operationOf(e))
					if !ofClientMode(c.Group) {
						if c.Plan == nil {
							panic("check " + c.ID + ": a server check needs a Plan")
						}
						run = serverSpec(c, e, in)
					}
					key := SpecKey{Operation: operationOf(e), Check: c.ID}
					It(c.Title, labels(c.Entry(), key.Operation), SpecTimeout(timeout), func(ctx SpecContext) {
						res := run(ctx)
						conclude(key, Concluded{Result: res, Cut: ctx.Err() != nil})
					})
				}
			})
		}
	}
	if e == nil || operationOf(e) == "" {
		tree(e)
		return
	}
	for _, op := range e.Operations() {
		Describe(op.Target.Operation, func() { tree(op) })
	}
})

// SpecKey names one spec of a run: a check, on an operation ("": the
// target's only one).
type SpecKey struct{ Operation, Check string }

// Verdicts are what the run's specs concluded, by spec.
type Verdicts map[SpecKey]Concluded

// Concluded is what one spec's body concluded, and whether the run was
// already being cut short (an interrupt, the run's time limit) when it
// did: a verdict reached before the cut stands, whatever Ginkgo marks
// the spec afterwards; one reached after it judged a truncated history.
type Concluded struct {
	check.Result
	Cut bool
}

// keyOf is the spec a Ginkgo report is of, from the labels the runner
// gave it.
func keyOf(r types.SpecReport) SpecKey {
	return SpecKey{Operation: operationLabelOf(r.Labels()), Check: checkLabel(r.Labels())}
}

// conclude keeps a spec's result and makes its Ginkgo state agree with
// the verdict.
func conclude(key SpecKey, c Concluded) {
	suite.Lock()
	o := suite.opts
	if suite.verdicts == nil {
		suite.verdicts = Verdicts{}
	}
	suite.verdicts[key] = c
	suite.Unlock()
	v := c.Verdict
	switch {
	case v.Status == check.FAIL, v.Status == check.ERROR:
		Fail(fmt.Sprintf("%s %s: %s", v.Status, v.Check, v.Reason))
	case v.Status == check.WARN && o.Strict:
		Fail(fmt.Sprintf("WARN %s (strict): %s", v.Check, v.Reason))
	case v.Status == check.SKIP:
		Skip(v.Reason)
	}
}

// Outcome is a finished (or interrupted) run as the runner hands it
// back: the run, and each check's result with its evidence.
type Outcome struct {
	Run    reports.Run
	Checks []reports.CheckResult
}

// Results is the outcome of the last run.
func Results() Outcome {
	suite.Lock()
	defer suite.Unlock()
	return suite.outcome
}

var _ = ReportAfterSuite("idemspec", func(r types.Report) {
	suite.Lock()
	defer suite.Unlock()
	// The other mode's specs are not this run's checks, not even skipped
	// ones: they stay out of its results.
	var specs types.SpecReports
	for _, s := range r.SpecReports {
		if s.LeafNodeType != types.NodeTypeIt || inMode(s, suite.opts) {
			specs = append(specs, s)
		}
	}
	r.SpecReports = specs
	suite.outcome = OutcomeOf(r, suite.verdicts)
})

// OutcomeOf is the outcome of a run Ginkgo reported as r, whose specs
// concluded v: the verdict and evidence each spec concluded, and for
// the specs that concluded nothing (cut short, never run, left out) what
// Ginkgo's state says of them.
func OutcomeOf(r types.Report, v Verdicts) Outcome {
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
	selected, _ := types.ParseLabelFilter(r.SuiteConfig.LabelFilter)
	var checks []reports.CheckResult
	for _, s := range r.SpecReports {
		res, judged, ok := resultOf(s, v)
		if !ok {
			continue
		}
		if !run.Complete {
			res = unfinished(s, v, res, judged, selected, timedOut)
		}
		c, _ := check.Get(res.Verdict.Check)
		checks = append(checks, reports.CheckResult{
			Entry: c, Operation: operationLabelOf(s.Labels()), Verdict: res.Verdict.Status, Reason: res.Verdict.Reason,
			Violations: res.Verdict.Violations, DurationMS: reports.MS(max(s.RunTime, res.Evidence.Search)), Evidence: res.Evidence,
		})
	}
	return Outcome{Run: run, Checks: checks}
}

// resultOf reads a spec's verdict, and whether the spec concluded one
// of its own (a check that skipped for a missing capability did). A spec
// that failed or panicked without one (an assertion in the harness, a
// timeout) is an ERROR. A spec whose body the interrupt cut short judged
// a truncated history, or none: it is a SKIP that says so, on the
// terminal and in the report alike. (One whose body had judged before
// the interrupt landed keeps its verdict, as does one the interrupt
// reached in a cleanup or report node.)
func resultOf(r types.SpecReport, v Verdicts) (res check.Result, judged, ok bool) {
	key := keyOf(r)
	if key.Check == "" {
		return check.Result{}, false, false
	}
	c, judged := v[key]
	res = c.Result
	if !judged {
		res = unjudged(r, key.Check)
	}
	if r.State.Is(types.SpecStateInterrupted|types.SpecStateAborted) && cutShort(r, c, judged) {
		res.Verdict = check.Skip(res.Verdict.Check, "not finished: the run was interrupted while it ran")
	}
	return res, judged, true
}

// cutShort says whether an interrupted spec's body was cut short: it
// concluded nothing, or concluded only once the cut had begun while its
// body ran.
func cutShort(r types.SpecReport, c Concluded, judged bool) bool {
	return !judged || (c.Cut && r.Failure.FailureNodeType == types.NodeTypeIt)
}

// unjudged is the result of a spec of check id that concluded nothing.
func unjudged(r types.SpecReport, id string) check.Result {
	switch r.State {
	case types.SpecStateSkipped, types.SpecStatePending:
		return check.Result{Verdict: check.Skip(id, "not selected")}
	case types.SpecStatePassed:
		return check.Result{Verdict: check.Errored(id, errors.New("the spec recorded no verdict"))}
	}
	return check.Result{Verdict: check.Errored(id, fmt.Errorf("%s: %s", r.State, r.Failure.Message))}
}

func checkLabel(labels []string) string {
	for _, l := range labels {
		if _, ok := check.Get(l); ok {
			return l
		}
	}
	return ""
}

// unfinished says why a check of an interrupted run has no real verdict
// when the spec never ran: the specs after the interrupt are marked
// skipped by Ginkgo, as it marks the ones the label filter left out. (A
// spec an interrupt cut short is a SKIP already: resultOf, which the
// terminal's lines use too.) When the run's time limit ran out, every
// check it cut short or never reached is ERROR: the harness could not
// judge it in the time it was given.
func unfinished(s types.SpecReport, v Verdicts, res check.Result, judged bool, selected types.LabelFilter, timedOut bool) check.Result {
	id := res.Verdict.Check
	skipped := s.State == types.SpecStateSkipped && !judged && selected != nil && selected(s.Labels())
	switch {
	case timedOut && skipped:
		res.Verdict = check.Errored(id, errors.New("not run: the run's time limit (--timeout) ran out"))
	case timedOut && s.State.Is(types.SpecStateInterrupted|types.SpecStateAborted|types.SpecStateTimedout) && cutShort(s, v[keyOf(s)], judged):
		res.Verdict = check.Errored(id, errors.New("not finished: the run's time limit (--timeout) ran out while it ran"))
	case skipped:
		res.Verdict = check.Skip(id, "not run: the run was interrupted")
	}
	return res
}
