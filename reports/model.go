// Package reports is the compliance report: one model built from the
// Ginkgo run plus the recorded evidence, and writers for it (JSON with a
// stable schema, JUnit XML, Markdown, a self-contained HTML page) and for
// a matrix comparing several runs. A report is what users hand to someone
// else as proof, so writers never drop a check, never write half a file,
// and never see a secret: the model is redacted when it is built.
//
// Writers take a Report and nothing else; they know no check by name, so
// a check added to the catalogue shows up in every format unchanged.
package reports

import (
	"errors"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/scenarios"
)

// Schema versions the JSON report; bump it on an incompatible change.
const Schema = "idemspec/report/v1"

// Report is one run against one target.
type Report struct {
	Schema  string        `json:"schema" redact:"-"`
	Tool    Tool          `json:"tool"`
	Run     Run           `json:"run"`
	Target  Target        `json:"target"`
	Checks  []CheckResult `json:"checks"`
	Summary Summary       `json:"summary"`
}

// Tool names the harness that wrote the report.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Run says when and how the suite ran.
type Run struct {
	ID          string    `json:"id"`
	Seed        int64     `json:"seed"`
	Started     time.Time `json:"started"`
	DurationMS  float64   `json:"duration_ms"`
	LabelFilter string    `json:"label_filter,omitempty"`
	Strict      bool      `json:"strict"`
	// Complete is false when the run was interrupted: the report holds
	// what finished, and Incomplete says why.
	Complete   bool   `json:"complete"`
	Incomplete string `json:"incomplete,omitempty"`
}

// Target describes what was tested, with secrets already redacted.
type Target struct {
	Name    string `json:"name"`
	Source  string `json:"source"`
	BaseURL string `json:"base_url"`
	Profile string `json:"profile"`
	Oracle  string `json:"oracle"`
	// OracleEvidence says how strong the oracle's readings are.
	OracleEvidence string `json:"oracle_evidence,omitempty"`
}

// CheckResult is one check's verdict with its evidence.
type CheckResult struct {
	check.Check
	Verdict    check.Status      `json:"verdict"`
	Reason     string            `json:"reason,omitempty"`
	Violations []check.Violation `json:"violations,omitempty"`
	DurationMS float64           `json:"duration_ms"`
	Evidence   check.Evidence    `json:"evidence"`
}

// Summary counts verdicts.
type Summary struct {
	Total int `json:"total"`
	Pass  int `json:"pass"`
	Fail  int `json:"fail"`
	Warn  int `json:"warn"`
	Skip  int `json:"skip"`
	Error int `json:"error"`
}

// Meta is what the Ginkgo report does not know.
type Meta struct {
	Version     string
	RunID       string
	Target      Target
	LabelFilter string
	Strict      bool
	// Redact replaces secrets (values of ${ENV} expansions and secret
	// headers) in every string of the report; nil redacts nothing.
	Redact func(string) string
}

// FromGinkgo builds the report from a finished (or interrupted) suite.
// Secrets are redacted here, once, so no writer can leak one.
func FromGinkgo(r types.Report, m Meta) Report {
	out := Report{
		Schema: Schema,
		Tool:   Tool{Name: "idemspec", Version: m.Version},
		Run: Run{
			ID: m.RunID, Seed: r.SuiteConfig.RandomSeed, Started: r.StartTime.UTC(),
			DurationMS:  ms(r.RunTime),
			LabelFilter: m.LabelFilter, Strict: m.Strict,
			Complete:   !r.SuiteConfig.DryRun && len(r.SpecialSuiteFailureReasons) == 0,
			Incomplete: strings.Join(r.SpecialSuiteFailureReasons, "; "),
		},
		Target: m.Target,
		Checks: []CheckResult{},
	}
	if r.SuiteConfig.DryRun && out.Run.Incomplete == "" {
		out.Run.Incomplete = "dry run"
	}
	timedOut := slices.ContainsFunc(r.SpecialSuiteFailureReasons, func(s string) bool { return strings.Contains(s, "Timeout") })
	if timedOut {
		out.Run.Incomplete = "the run's time limit (--timeout) ran out"
	}
	selected, _ := types.ParseLabelFilter(m.LabelFilter)
	for _, s := range r.SpecReports {
		res, ok := scenarios.ResultOf(s)
		if !ok {
			continue
		}
		if !out.Run.Complete {
			res = unfinished(s, res, selected, timedOut)
		}
		c, _ := check.Get(res.Verdict.Check)
		out.Checks = append(out.Checks, CheckResult{
			Check: c, Verdict: res.Verdict.Status, Reason: res.Verdict.Reason,
			Violations: res.Verdict.Violations, DurationMS: ms(s.RunTime), Evidence: res.Evidence,
		})
	}
	out.sortChecks()
	out.Summary = summarize(out.Checks)
	if m.Redact != nil {
		out = Redact(out, m.Redact)
	}
	return out
}

// unfinished says why a check of an interrupted run has no real verdict
// when the spec never ran: the specs after the interrupt are marked
// skipped by Ginkgo, as it marks the ones the label filter left out. (A
// spec an interrupt cut short is a SKIP already: scenarios.ResultOf,
// which the terminal's lines use too.) When the run's time limit ran
// out, every check it cut short or never reached is ERROR: the harness
// could not judge it in the time it was given.
func unfinished(s types.SpecReport, res check.Result, selected types.LabelFilter, timedOut bool) check.Result {
	id := res.Verdict.Check
	skipped := s.State == types.SpecStateSkipped && !scenarios.Judged(s) && selected != nil && selected(s.Labels())
	switch {
	case timedOut && skipped:
		res.Verdict = check.Errored(id, errors.New("not run: the run's time limit (--timeout) ran out"))
	case timedOut && s.State.Is(types.SpecStateInterrupted|types.SpecStateAborted|types.SpecStateTimedout) && (!scenarios.Judged(s) || s.Failure.FailureNodeType == types.NodeTypeIt):
		res.Verdict = check.Errored(id, errors.New("not finished: the run's time limit (--timeout) ran out while it ran"))
	case skipped:
		res.Verdict = check.Skip(id, "not run: the run was interrupted")
	}
	return res
}

func (r *Report) sortChecks() {
	sort.SliceStable(r.Checks, func(i, j int) bool { return check.LessID(r.Checks[i].ID, r.Checks[j].ID) })
}

func summarize(cs []CheckResult) Summary {
	var s Summary
	for _, c := range cs {
		s.Total++
		switch c.Verdict {
		case check.PASS:
			s.Pass++
		case check.FAIL:
			s.Fail++
		case check.WARN:
			s.Warn++
		case check.SKIP:
			s.Skip++
		case check.ERROR:
			s.Error++
		}
	}
	return s
}

// ExitCode is what the CLI returns: 1 for a violation (a FAIL, or a WARN
// under strict), else 2 when the harness could not run a check or the run
// was interrupted, else 0.
func (r Report) ExitCode() int {
	switch {
	case r.Summary.Fail > 0 || (r.Run.Strict && r.Summary.Warn > 0):
		return 1
	case r.Summary.Error > 0 || !r.Run.Complete:
		return 2
	}
	return 0
}

// Verdict is the run's verdict in one word, as the exit code decides it:
// PASS, FAIL, INCOMPLETE (interrupted) or ERROR.
func (r Report) Verdict() string {
	switch r.ExitCode() {
	case 0:
		return "PASS"
	case 1:
		return "FAIL"
	}
	if !r.Run.Complete && r.Summary.Error == 0 {
		return "INCOMPLETE"
	}
	return "ERROR"
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
