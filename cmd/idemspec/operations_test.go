package main_test

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/reports"
	"github.com/idemspec/idemspec/scenarios"
)

// operationsExample describes the reference twice, as the operations
// first and second of one file, run as a managed process.
var operationsExample = filepath.Join("..", "..", "examples", "targets", "operations.yaml")

// TestOperationsDetection runs a file of two operations against the
// reference, which passes every check in each, and against a mutant,
// which each operation catches exactly as the matrix says: one run
// drives every check once per operation, sharing one process.
func TestOperationsDetection(t *testing.T) {
	long(t)
	t.Parallel()
	for _, name := range []string{fakes.Reference, "ignore-payload"} {
		m := serverMutant(t, name)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := runEnv(t, []string{"IDEMSPEC_MUTANT=" + name}, "--target", operationsExample, "--report-dir", t.TempDir(), "--label-filter", "!property")
			for _, op := range []string{"first", "second"} {
				one := r
				one.report.Checks = r.report.ChecksOf(op)
				expectDetection(t, withoutProperties(m), one, "operation "+op)
			}
			if got := r.report.Operations(); !slices.Equal(got, []string{"first", "second"}) {
				t.Errorf("operations in the report: %v", got)
			}
			if want := wantExit(t, withoutProperties(m)); r.code != want {
				t.Errorf("exit %d, want %d\n%s%s", r.code, want, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stdout, "PASS  S1   [second] should") {
				t.Errorf("no progress line names the operation:\n%s", r.stdout)
			}
		})
	}
}

// TestOperationSelects runs one operation of two: the report and the
// JUnit file hold it alone; an unknown name is refused with the known.
func TestOperationSelects(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := runEnv(t, nil, "--target", operationsExample, "--report-dir", dir, "--label-filter", "S1 || S3", "--operation", "second")
	ran := r.report.Summary.Total - r.report.Summary.Skip
	if r.code != 0 || ran != 2 || r.report.Summary.Pass != 2 {
		t.Fatalf("exit %d, %d checks ran, want 0 and S1, S3 of second passing\n%s%s", r.code, ran, r.stdout, r.stderr)
	}
	for _, c := range r.report.Checks {
		if c.Operation != "second" {
			t.Errorf("%s drove operation %q", c.ID, c.Operation)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var junit struct {
		Suites []struct {
			Name  string `xml:"name,attr"`
			Tests int    `xml:"tests,attr"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &junit); err != nil || len(junit.Suites) != 1 || !strings.HasSuffix(junit.Suites[0].Name, " second") || junit.Suites[0].Tests != len(r.report.Checks) {
		t.Errorf("JUnit: %+v (%v), want one suite of operation second with every check", junit.Suites, err)
	}
	if rep, err := reports.ReadJSON(filepath.Join(dir, "report.json")); err != nil || rep.Checks[0].Operation != "second" {
		t.Errorf("report.json: checks[].operation: %v", err)
	}

	bad := idemspec(t, "run", "--dry-run", "--target", operationsExample, "--operation", "third")
	if bad.code != 2 || !strings.Contains(bad.stderr, "--operation third: no such operation (known: first, second)") {
		t.Errorf("exit %d\n%s", bad.code, bad.stderr)
	}
	// A run that ends before its first check reports each operation's
	// checks as ERROR, naming the cause.
	notRun := runEnv(t, nil, "--target", operationsExample, "--report-dir", t.TempDir(), "--label-filter", "S1", "--operation", "third")
	if ops := notRun.report.Operations(); notRun.code != 2 || !slices.Equal(ops, []string{"first", "second"}) || notRun.report.Summary.Error != 2 {
		t.Errorf("not run: exit %d, operations %v, %d errors; want 2, both, S1 of each", notRun.code, ops, notRun.report.Summary.Error)
	}
	plan := idemspec(t, "run", "--dry-run", "--target", operationsExample, "--label-filter", "S1")
	for _, op := range []string{"first", "second"} {
		if !strings.Contains(plan.stdout, fmt.Sprintf("operation %s", op)) {
			t.Errorf("the plan does not list operation %s:\n%s", op, plan.stdout)
		}
	}
}

// The dry run plans each operation, and the run sends what it planned:
// the preflight once, each check once per operation.
func TestPlanMatchesWhatIsSentWithOperations(t *testing.T) {
	t.Parallel()
	planMatchesWhatIsSent(t, operationsExample, "S1 || S3 || K2")
}

// actionExample appends events to a resource its setup creates, beside
// a plain create, on the reference run as a managed process.
var actionExample = filepath.Join("..", "..", "examples", "targets", "action-with-setup.yaml")

// TestActionOnAParent runs the action example: the reference passes
// every check of the action, a mutant fails exactly its entry's checks
// there too, and the server's log shows each check's creates were
// events appended to a parent that setup made once per marker.
func TestActionOnAParent(t *testing.T) {
	long(t)
	t.Parallel()
	for _, name := range []string{fakes.Reference, "ignore-payload"} {
		m := serverMutant(t, name)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			r := runEnv(t, []string{"IDEMSPEC_MUTANT=" + name}, "--target", actionExample, "--report-dir", dir, "--label-filter", "!property", "--operation", "append-event")
			expectDetection(t, withoutProperties(m), r, "operation append-event")
			if want := wantExit(t, withoutProperties(m)); r.code != want {
				t.Errorf("exit %d, want %d\n%s%s", r.code, want, r.stdout, r.stderr)
			}
			log, err := os.ReadFile(filepath.Join(dir, "target.log"))
			if err != nil {
				t.Fatal(err)
			}
			events := regexp.MustCompile(`POST /resources/(res_[0-9a-f]+)/events key=`).FindAllSubmatch(log, -1)
			parents := regexp.MustCompile(`POST /resources key=\S+ status=201 replayed=false`).FindAll(log, -1)
			distinct := map[string]bool{}
			for _, e := range events {
				distinct[string(e[1])] = true
			}
			// Every check's resource has a parent of its own, made once
			// (a parent per request would make several times as many);
			// a parent never acted on is the preflight's, whose marker
			// only reads the oracle, or a check's that stopped early.
			if len(events) < 20 || len(distinct) < 10 || len(parents) < len(distinct) || len(parents) > len(distinct)+5 {
				t.Errorf("%d events on %d parents, %d parents created: want the creates to act on parents made once each\n%s", len(events), len(distinct), len(parents), r.stdout)
			}
		})
	}
}

// TestPropertyReplayNamesTheOperation: in a file with several
// operations, a property's replay line runs the operation whose search
// failed, and nothing else.
func TestPropertyReplayNamesTheOperation(t *testing.T) {
	long(t)
	t.Parallel()
	r := runEnv(t, []string{"IDEMSPEC_MUTANT=ignore-payload"}, "--target", operationsExample, "--report-dir", t.TempDir(), "--label-filter", "P1", "--sequences", "10")
	for _, op := range []string{"first", "second"} {
		var p1 *reports.CheckResult
		for _, c := range r.report.ChecksOf(op) {
			if c.ID == scenarios.P1.ID {
				p1 = &c
			}
		}
		if p1 == nil || p1.Verdict != check.FAIL {
			t.Fatalf("operation %s: P1 %v, want FAIL\n%s", op, p1, r.stdout)
		}
		if !strings.HasSuffix(p1.Evidence.Replay, " --operation "+op) && !strings.Contains(p1.Evidence.Replay, " --operation "+op+" ") {
			t.Errorf("operation %s: replay line %q does not name it", op, p1.Evidence.Replay)
		}
	}
}
