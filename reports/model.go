// Package reports is the compliance report: one model built from the
// Ginkgo run plus the recorded evidence, and writers for it (JSON with a
// stable schema, JUnit XML). A report is what users hand to someone else
// as proof, so writers never drop a check and never write half a file.
package reports

import (
	"sort"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/scenarios"
)

// Schema versions the JSON report; bump it on an incompatible change.
const Schema = "idemspec/report/v1"

// Report is one run against one target.
type Report struct {
	Schema  string        `json:"schema"`
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
	// what finished.
	Complete bool `json:"complete"`
}

// Target describes what was tested, with secrets already redacted.
type Target struct {
	Name    string `json:"name"`
	Source  string `json:"source"`
	BaseURL string `json:"base_url"`
	Profile string `json:"profile"`
	Oracle  string `json:"oracle"`
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
}

// FromGinkgo builds the report from a finished (or interrupted) suite.
func FromGinkgo(r types.Report, m Meta) Report {
	out := Report{
		Schema: Schema,
		Tool:   Tool{Name: "idemspec", Version: m.Version},
		Run: Run{
			ID: m.RunID, Seed: r.SuiteConfig.RandomSeed, Started: r.StartTime.UTC(),
			DurationMS:  ms(r.RunTime),
			LabelFilter: m.LabelFilter, Strict: m.Strict,
			Complete: !r.SuiteConfig.DryRun && len(r.SpecialSuiteFailureReasons) == 0,
		},
		Target: m.Target,
		Checks: []CheckResult{},
	}
	for _, s := range r.SpecReports {
		res, ok := scenarios.ResultOf(s)
		if !ok {
			continue
		}
		c, _ := check.Get(res.Verdict.Check)
		out.Checks = append(out.Checks, CheckResult{
			Check: c, Verdict: res.Verdict.Status, Reason: res.Verdict.Reason,
			Violations: res.Verdict.Violations, DurationMS: ms(s.RunTime), Evidence: res.Evidence,
		})
	}
	out.sortChecks()
	out.Summary = summarize(out.Checks)
	return out
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

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
