package main_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/reports"
)

// TestInterruptedRunLeavesIncompleteReport sends SIGINT to idemspec
// while a check runs. Ginkgo's interrupt handler ends the running spec,
// skips the rest and still runs ReportAfterSuite, so the reports are
// written: marked incomplete, holding the check that finished with its
// real verdict, the rest SKIP with the reason. The fake is slowed (every
// creation takes 300 ms) so the signal lands inside a check, not between
// the last check and the end.
func TestInterruptedRunLeavesIncompleteReport(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "run", "--target", "fake:reference?delay=300ms", "--label-filter", "core", "--report-dir", dir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	var first, out string
	for lines.Scan() {
		out += lines.Text() + "\n"
		if f := strings.Fields(lines.Text()); len(f) > 1 && isVerdict(f[0]) {
			first = lines.Text()
			break
		}
	}
	if first == "" {
		cmd.Wait()
		t.Fatalf("no check finished:\n%s%s", out, stderr.String())
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	for lines.Scan() {
		out += lines.Text() + "\n"
	}
	err = cmd.Wait()
	if ctx.Err() != nil {
		t.Fatalf("idemspec did not stop after SIGINT:\n%s", out)
	}
	if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 2 {
		t.Errorf("exit %v, want 2 (incomplete)\n%s%s", err, out, stderr.String())
	}

	r, err := reports.ReadJSON(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatalf("no report after SIGINT: %v\n%s%s", err, out, stderr.String())
	}
	if r.Run.Complete || r.Run.Incomplete != "Interrupted by User" {
		t.Errorf("run %+v: want complete=false, incomplete=Interrupted by User", r.Run)
	}
	f := strings.Fields(first)
	// Every verdict the terminal printed, the check cut short by the
	// signal included, is the report's: one source of truth.
	printed := map[string]check.Status{}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 1 && isVerdict(f[0]) {
			printed[f[1]] = check.Status(f[0])
		}
	}
	unfinished := 0
	for _, c := range r.Checks {
		if said, ok := printed[c.ID]; ok && c.Verdict != said {
			t.Errorf("the terminal said %s %s but the report says %s", said, c.ID, c.Verdict)
		}
		if c.Verdict == check.SKIP && strings.Contains(c.Reason, "interrupted") {
			unfinished++
		}
	}
	if _, ok := printed[f[1]]; !ok || unfinished == 0 || len(r.Checks) < 2 {
		t.Errorf("want the finished check %s and at least one SKIP for the interruption, got %+v", f[1], r.Checks)
	}
	if !strings.Contains(out, "the run is incomplete (Interrupted by User)") {
		t.Errorf("stdout does not say the run is incomplete:\n%s", out)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "ginkgo.log junit.xml report.html report.json report.md" {
		t.Errorf("report directory holds %v: want the four reports and the log, no temporary files", names)
	}
	html, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	if !strings.Contains(string(html), "Incomplete run.") {
		t.Error("report.html does not flag the incomplete run")
	}
}

func isVerdict(s string) bool {
	switch check.Status(s) {
	case check.PASS, check.FAIL, check.WARN, check.SKIP, check.ERROR:
		return true
	}
	return false
}
