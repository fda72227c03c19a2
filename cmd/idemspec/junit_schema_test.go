package main_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/reports"
)

// The JUnit file must be accepted by a standard consumer: it is
// validated against docs/junit.xsd (the common JUnit shape) with
// xmllint, for a real run and for a report with every verdict.

const junitSchema = "../../docs/junit.xsd"

func xmllintValidate(t *testing.T, xmllint, file string) (bool, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, xmllint, "--noout", "--schema", junitSchema, file).CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("xmllint hung on %s", file)
	}
	return err == nil, string(out)
}

func TestJUnitValidatesAgainstSchema(t *testing.T) {
	t.Parallel()
	xmllint := requireTool(t, "xmllint", "libxml2-utils")

	real := filepath.Join(runInto(t, "fake:nodedup", 1), "junit.xml")

	// Every verdict, and strict mode, which turns a WARN into a failure.
	every := reports.Report{
		Schema: reports.Schema, Tool: reports.Tool{Name: "idemspec", Version: "test"},
		Run:    reports.Run{ID: "r", Seed: 1, Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Complete: false, Incomplete: "Interrupted by User", LabelFilter: "core"},
		Target: reports.Target{Name: "t <&> \"q\"", Source: "t.yaml"},
	}
	for i, v := range []check.Status{check.PASS, check.FAIL, check.WARN, check.SKIP, check.ERROR} {
		every.Checks = append(every.Checks, reports.CheckResult{
			Entry:   check.Entry{ID: "X" + string(rune('1'+i)), Title: "should hold ]]> <tag> & \x01", Level: check.SHOULD, Clause: "core", Group: "g"},
			Verdict: v, Reason: "reason <b>&</b>", DurationMS: 1.5,
			Violations: []check.Violation{{What: "broke", Seqs: []int{1}}},
		})
	}
	// ACCEPTED is a skipped case; a stale accepted-findings entry a
	// failed case of its own.
	every.Checks = append(every.Checks, reports.CheckResult{
		Entry:   check.Entry{ID: "X9", Title: "should be accepted <&>", Level: check.MUST, Clause: "core", Group: "g"},
		Verdict: check.ACCEPTED, Reason: "broke", Accepted: &reports.Accepted{Was: check.FAIL, Reason: "PAY-1 <&>", Until: "2027-01-31", Line: 1},
	})
	every.Acceptance = &reports.AcceptanceRun{File: "a.yaml", Entries: []reports.AcceptedEntry{{
		Acceptance: reports.Acceptance{Check: "X1", Reason: "old", Until: "2027-01-31", Line: 4},
		State:      reports.AcceptStale, Message: "a.yaml:4: remove it: X1 passes now",
	}}}
	files := []string{real}
	for _, strict := range []bool{false, true} {
		every.Run.Strict = strict
		var b bytes.Buffer
		if err := reports.WriteJUnit(&b, every); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), "junit.xml")
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	for _, f := range files {
		if ok, out := xmllintValidate(t, xmllint, f); !ok {
			b, _ := os.ReadFile(f)
			t.Errorf("%s does not validate against %s:\n%s\n%s", f, junitSchema, out, b)
		}
	}

	// The schema has teeth: well-formed files that break it are refused.
	b, err := os.ReadFile(real)
	if err != nil {
		t.Fatal(err)
	}
	for name, broken := range map[string]string{
		"no test count":     regexp.MustCompile(`(<testsuite name="[^"]*") tests="\d+"`).ReplaceAllString(string(b), "$1"),
		"time not a number": regexp.MustCompile(`(<testcase [^>]*time=")[0-9.]+"`).ReplaceAllString(string(b), `${1}fast"`),
		"failure untyped":   regexp.MustCompile(`(<failure message="[^"]*") type="[^"]*"`).ReplaceAllString(string(b), "$1"),
	} {
		if broken == string(b) {
			t.Fatalf("%s: the edit changed nothing", name)
		}
		p := filepath.Join(t.TempDir(), "broken.xml")
		if err := os.WriteFile(p, []byte(broken), 0o644); err != nil {
			t.Fatal(err)
		}
		if ok, out := xmllintValidate(t, xmllint, p); ok || !strings.Contains(out, "fails to validate") {
			t.Errorf("%s: xmllint did not refuse it on schema grounds:\n%s", name, out)
		}
	}
}
