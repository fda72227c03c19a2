package scenarios_test

import (
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/reports"
	"github.com/idemspec/idemspec/scenarios"
)

// The runner's outcome is tested against synthetic Ginkgo reports, as
// Ginkgo's own suites test their reporters: each spec is a SpecReport
// with the check's labels and, when it judged, the result it concluded.

var t0 = time.Date(2026, 5, 4, 10, 30, 0, 0, time.UTC)

// concluded is a spec and the result its body concluded (nil: none).
type concluded struct {
	types.SpecReport
	res *check.Result
	cut bool // the body concluded after the interrupt began
}

func spec(id string, state types.SpecState, res *check.Result) concluded {
	c, _ := check.Get(id)
	return concluded{types.SpecReport{
		LeafNodeText: c.Title, LeafNodeLabels: []string{id, string(c.Level), c.Group, "scenario"},
		State: state, RunTime: 25 * time.Millisecond,
	}, res, false}
}

func judged(v check.Verdict, body string) *check.Result {
	return &check.Result{Verdict: v, Evidence: check.Evidence{History: []history.Exchange{{Seq: 1, Step: "send", Body: body, Outcome: history.OK, Status: 201}}}}
}

// suite is a run of specs: Ginkgo's report of it, and what its specs
// concluded.
func suite(specs ...concluded) (types.Report, scenarios.Verdicts) {
	g := types.Report{
		SuiteConfig: types.SuiteConfig{RandomSeed: 77},
		StartTime:   t0.Add(2 * time.Hour), RunTime: 1500 * time.Millisecond,
		SuiteSucceeded: true,
	}
	v := scenarios.Verdicts{}
	for _, s := range specs {
		g.SpecReports = append(g.SpecReports, s.SpecReport)
		if s.res != nil {
			v[scenarios.SpecKey{Check: s.LeafNodeLabels[0]}] = scenarios.Concluded{Result: *s.res, Cut: s.cut}
		}
	}
	return g, v
}

// compliance is the report of a run, built as `idemspec run` builds it.
func compliance(g types.Report, v scenarios.Verdicts, m reports.Meta) reports.Report {
	out := scenarios.OutcomeOf(g, v)
	return reports.New(out.Run, m, out.Checks)
}

func TestReportCompleteRun(t *testing.T) {
	g, v := suite(
		spec("S3", types.SpecStateFailed, judged(check.Judge("S3", check.Violation{What: "not rejected", Seqs: []int{1}}), "ok")),
		spec("S1", types.SpecStatePassed, judged(check.Judge("S1"), "ok")),
		spec("S2", types.SpecStatePanicked, nil), // died without a verdict
		concluded{SpecReport: types.SpecReport{LeafNodeText: "not a check", State: types.SpecStatePassed}},
	)
	r := compliance(g, v, reports.Meta{Version: "9.9", RunID: "run1", Target: reports.Target{Name: "t"}})
	var got []string
	for _, c := range r.Checks {
		got = append(got, c.ID+"="+string(c.Verdict))
	}
	if strings.Join(got, " ") != "S1=PASS S2=ERROR S3=FAIL" {
		t.Errorf("checks %v: want them sorted by ID, the panicked one an ERROR, the non-check left out", got)
	}
	if !r.Run.Complete || r.Run.Incomplete != "" || r.Run.Seed != 77 || r.Run.DurationMS != 1500 || !r.Run.Started.Equal(t0.Add(2*time.Hour)) {
		t.Errorf("run %+v", r.Run)
	}
	if r.Schema != reports.Schema || r.Tool.Version != "9.9" || r.Run.ID != "run1" {
		t.Errorf("header %+v %+v", r.Tool, r.Run)
	}
	if r.Summary != (reports.Summary{Total: 3, Pass: 1, Fail: 1, Error: 1}) || r.ExitCode() != 1 || r.Verdict() != "FAIL" {
		t.Errorf("summary %+v, exit %d, verdict %s", r.Summary, r.ExitCode(), r.Verdict())
	}
	s3 := byID(r, "S3")
	if s3.Title != scenarios.S3.Title || s3.Level != check.MUST || len(s3.Evidence.History) != 1 || s3.DurationMS != 25 {
		t.Errorf("S3 lost its catalogue entry or evidence: %+v", s3)
	}
}

func TestReportInterruptedRun(t *testing.T) {
	g, v := suite(
		// The interrupt came while S2's body ran: whatever it judged is not a verdict.
		interrupted(spec("S2", types.SpecStateInterrupted, judged(check.Judge("S2", check.Violation{What: "cut short"}), "ok")), types.NodeTypeIt),
		// It came after S1's body judged, while its report node ran: the verdict stands.
		interrupted(spec("S1", types.SpecStateInterrupted, judged(check.Judge("S1"), "ok")), types.NodeTypeReportAfterEach),
		spec("S3", types.SpecStateSkipped, nil), // never ran
		spec("S4", types.SpecStateSkipped, nil), // left out by the label filter
		// Its body judged, then the interrupt reached its It: the verdict stands.
		concludedFirst(interrupted(spec("S5a", types.SpecStateInterrupted, judged(check.Judge("S5a"), "ok")), types.NodeTypeIt)),
	)
	g.SuiteSucceeded = false
	g.SpecialSuiteFailureReasons = []string{"Interrupted by User"}
	g.SuiteConfig.LabelFilter = "!S4"
	r := compliance(g, v, reports.Meta{LabelFilter: "!S4"})
	if r.Run.Complete || r.Run.Incomplete != "Interrupted by User" {
		t.Errorf("run %+v: want incomplete", r.Run)
	}
	want := map[string]string{
		"S1":  "PASS ",
		"S2":  "SKIP not finished: the run was interrupted while it ran",
		"S3":  "SKIP not run: the run was interrupted",
		"S4":  "SKIP not selected",
		"S5a": "PASS ",
	}
	for id, w := range want {
		c := byID(r, id)
		if got := string(c.Verdict) + " " + c.Reason; got != w {
			t.Errorf("%s: %q, want %q", id, got, w)
		}
	}
	if len(byID(r, "S2").Evidence.History) != 1 {
		t.Error("the interrupted check lost the evidence it had")
	}
	if r.ExitCode() != 2 || r.Verdict() != "INCOMPLETE" {
		t.Errorf("exit %d, verdict %s: an interrupted run without a FAIL exits 2", r.ExitCode(), r.Verdict())
	}
}

func TestReportRedacts(t *testing.T) {
	g, v := suite(spec("S1", types.SpecStateFailed, judged(check.Errored("S1", errString("401 for Bearer s3cr3t-xyz")), `{"echo":"s3cr3t-xyz"}`)))
	r := compliance(g, v, reports.Meta{
		Target: reports.Target{BaseURL: "http://u:s3cr3t-xyz@127.0.0.1:1"},
		Redact: func(s string) string { return strings.ReplaceAll(s, "s3cr3t-xyz", "[redacted]") },
	})
	c := byID(r, "S1")
	if c.Reason != "401 for Bearer [redacted]" || c.Evidence.History[0].Body != `{"echo":"[redacted]"}` || r.Target.BaseURL != "http://u:[redacted]@127.0.0.1:1" {
		t.Errorf("not redacted: %q %q %q", c.Reason, c.Evidence.History[0].Body, r.Target.BaseURL)
	}
}

// interrupted marks s interrupted during a node; an interrupt during its
// body (the It) cut that body short.
func interrupted(s concluded, during types.NodeType) concluded {
	s.Failure = types.Failure{Message: "interrupted by user", FailureNodeType: during}
	s.cut = during == types.NodeTypeIt
	return s
}

// concludedFirst is s with its body's verdict reached before the
// interrupt, which Ginkgo then marked during the It all the same.
func concludedFirst(s concluded) concluded {
	s.cut = false
	return s
}

type errString string

func (e errString) Error() string { return string(e) }

// byID finds a check in a report.
func byID(r reports.Report, id string) reports.CheckResult {
	for _, c := range r.Checks {
		if c.ID == id {
			return c
		}
	}
	panic("no check " + id)
}
