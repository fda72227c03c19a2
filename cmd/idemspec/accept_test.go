package main_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/reports"
)

// acceptRunFilter keeps the acceptance runs to the deterministic
// checks: a property's search is seconds more per run and says nothing
// more of the accepted findings.
const acceptRunFilter = "!property"

// TestAcceptedFindingsThroughTheBinary is the team's first week: a red
// run against fake:nodedup; `idemspec accept --from` writes an entry
// for every FAIL and WARN; with it the run is green, every finding
// ACCEPTED with its reason; an entry past its date fails the run naming
// it; the same file against fake:reference fails naming every stale
// entry; a bad entry is a load error naming file, line and field.
func TestAcceptedFindingsThroughTheBinary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	run := func(name string, args ...string) result {
		t.Helper()
		out := filepath.Join(dir, name)
		r := idemspec(t, append([]string{"run", "--label-filter", acceptRunFilter, "--report-dir", out, "--no-color"}, args...)...)
		if rep, err := reports.ReadJSON(filepath.Join(out, "report.json")); err == nil {
			r.report = rep
		}
		return r
	}
	red := run("red", "--target", "fake:nodedup")
	if red.code != 1 {
		t.Fatalf("nodedup: exit %d, want 1\n%s%s", red.code, red.stdout, red.stderr)
	}
	var findings []string
	for _, c := range red.report.Checks {
		if c.Verdict == check.FAIL || c.Verdict == check.WARN {
			findings = append(findings, c.ID)
		}
	}
	if len(findings) < 5 {
		t.Fatalf("nodedup has only %v as findings", findings)
	}

	const reason = "PAY-123: the key store lands in Q1"
	until := time.Now().UTC().AddDate(0, 0, 30).Format("2006-01-02")
	accepted := filepath.Join(dir, "accepted.yaml")
	if r := idemspec(t, "accept", "--from", filepath.Join(dir, "red", "report.json"), "--reason", reason, "--until", until, "--out", accepted); r.code != 0 {
		t.Fatalf("accept --from: exit %d\n%s", r.code, r.stderr)
	}
	file, err := os.ReadFile(accepted)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range findings {
		if !strings.Contains(string(file), "- check: "+id+"\n") {
			t.Errorf("accepted.yaml has no entry for %s:\n%s", id, file)
		}
	}

	green := run("green", "--target", "fake:nodedup", "--accept", accepted)
	if green.code != 0 {
		t.Fatalf("nodedup with its findings accepted: exit %d, want 0\n%s%s", green.code, green.stdout, green.stderr)
	}
	for _, id := range findings {
		if !regexp.MustCompile(`(?m)^ACCEPTED ` + id + ` .* until ` + until + `: ` + regexp.QuoteMeta(reason) + `$`).MatchString(green.stdout) {
			t.Errorf("the terminal shows no ACCEPTED line for %s:\n%s", id, green.stdout)
		}
	}
	for _, c := range green.report.Checks {
		if accepted := c.Verdict == check.ACCEPTED; accepted != slices.Contains(findings, c.ID) || (accepted && c.Accepted.Reason != reason) {
			t.Errorf("report.json: %s %s %+v", c.ID, c.Verdict, c.Accepted)
		}
	}
	junit, _ := os.ReadFile(filepath.Join(dir, "green", "junit.xml"))
	if n := strings.Count(string(junit), `<skipped message="ACCEPTED until `+until+`: `+reason); n != len(findings) {
		t.Errorf("junit.xml: %d accepted findings skipped with their reason, want %d", n, len(findings))
	}

	// One entry past its date: the run fails again, naming it.
	expired := filepath.Join(dir, "expired.yaml")
	yesterday := time.Now().UTC().AddDate(0, 0, -1).Format("2006-01-02")
	at := strings.Index(string(file), "- check: S3\n")
	if at < 0 {
		t.Fatalf("no S3 entry to expire in\n%s", file)
	}
	old := string(file[:at]) + strings.Replace(string(file[at:]), "until: "+until, "until: "+yesterday, 1)
	os.WriteFile(expired, []byte(old), 0o644)
	line := 1 + strings.Count(old[:strings.Index(old, "- check: S3\n")], "\n")
	late := run("expired", "--target", "fake:nodedup", "--accept", expired)
	if want := fmt.Sprintf("%s:%d: S3 was accepted until %s, and it FAILs still", expired, line, yesterday); late.code != 1 || !strings.Contains(late.stdout, want) {
		t.Errorf("expired entry: exit %d, want 1 and %q\n%s%s", late.code, want, late.stdout, late.stderr)
	}

	// Against the reference every entry is stale, and since the red run
	// every finding is fixed (--previous).
	stale := run("stale", "--target", "fake:reference", "--accept", accepted, "--previous", filepath.Join(dir, "red", "report.json"))
	if stale.code != 1 {
		t.Errorf("reference with the file: exit %d, want 1\n%s%s", stale.code, stale.stdout, stale.stderr)
	}
	for _, id := range findings {
		if !strings.Contains(stale.stdout, "remove it: "+id+" passes now") {
			t.Errorf("the stale entry for %s is not named:\n%s", id, stale.stdout)
		}
	}

	since := "since the previous run (" + red.report.Run.ID + "):\n  newly failing  none\n  fixed          " + strings.Join(findings, ", ") + "\n  still failing  none\n"
	if !strings.Contains(stale.stdout, since) {
		t.Errorf("the terminal summary lacks\n%s\n%s", since, stale.stdout)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "stale", "report.md"))
	if !strings.Contains(string(md), "| none | "+strings.Join(findings, ", ")+" | none |") {
		t.Errorf("report.md lacks the table since the previous run:\n%.1500s", md)
	}
	if r := run("noprevious", "--target", "fake:reference", "--previous", filepath.Join(dir, "none.json")); r.code != 2 || !strings.Contains(r.stderr, "--previous: report:") {
		t.Errorf("a missing previous report: exit %d, %q", r.code, r.stderr)
	}

	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("- check: S3\n  reason: x\n  until: 2027-01-01\n- check: S99\n  reason: x\n  until: 2027-01-01\n"), 0o644)
	if r := run("bad", "--target", "fake:reference", "--accept", bad); r.code != 2 || !strings.Contains(r.stderr, bad+`:4: [1].check: no check "S99"`) {
		t.Errorf("unknown check: exit %d, want 2 naming file, line and field\n%s", r.code, r.stderr)
	}
}

// --fail-on should is --strict (a WARN fails the run); must leaves the
// default; anything else is a usage error.
func TestFailOnLevels(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		level  string
		strict bool
	}{{"must", false}, {"should", true}} {
		dir := t.TempDir()
		r := idemspec(t, "run", "--target", "fake:unbounded-key-length", "--label-filter", "K2a", "--report-dir", dir, "--fail-on", c.level)
		rep, err := reports.ReadJSON(filepath.Join(dir, "report.json"))
		if err != nil {
			t.Fatalf("--fail-on %s: %v\n%s", c.level, err, r.stderr)
		}
		want := 0
		if c.strict {
			want = 1
		}
		if rep.Run.Strict != c.strict || r.code != want || rep.Summary.Warn != 1 {
			t.Errorf("--fail-on %s: strict %t, exit %d, summary %+v: want strict %t, exit %d over K2a's WARN", c.level, rep.Run.Strict, r.code, rep.Summary, c.strict, want)
		}
	}
	if r := idemspec(t, "run", "--fail-on", "may"); r.code != 2 || !strings.Contains(r.stderr, "want must or should") {
		t.Errorf("--fail-on may: exit %d, %q", r.code, r.stderr)
	}
}
