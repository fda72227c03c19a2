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
	s := startRun(t, ctx, "--target", "fake:reference?delay=300ms", "--label-filter", "core", "--report-dir", dir)
	cmd, stderr := s.cmd, &s.stderr
	first := s.firstVerdict()
	if first == "" {
		cmd.Wait()
		t.Fatalf("no check finished:\n%s%s", s.out, stderr.String())
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	s.rest()
	out := s.out
	err := cmd.Wait()
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
	if r.Run.Complete || r.Run.Incomplete != "interrupted by SIGINT" {
		t.Errorf("run %+v: want complete=false, incomplete=interrupted by SIGINT", r.Run)
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
	if !strings.Contains(out, "the run is incomplete (interrupted by SIGINT)") {
		t.Errorf("stdout does not say the run is incomplete:\n%s", out)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "ginkgo.log junit.xml report.html report.json report.md report.sarif" {
		t.Errorf("report directory holds %v: want the five reports and the log, no temporary files", names)
	}
	html, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	if !strings.Contains(string(html), "Incomplete run.") {
		t.Error("report.html does not flag the incomplete run")
	}
}

// runningSuite is `idemspec run` started, its output read line by line.
type runningSuite struct {
	cmd    *exec.Cmd
	lines  *bufio.Scanner
	stderr strings.Builder
	out    string // what it printed so far
}

// startRun starts `idemspec run args...`, killed when ctx ends.
func startRun(t *testing.T, ctx context.Context, args ...string) *runningSuite {
	t.Helper()
	return startSuite(t, exec.CommandContext(ctx, binary, append([]string{"run"}, args...)...))
}

// startSuite starts cmd, an idemspec run, its output read line by line.
func startSuite(t *testing.T, cmd *exec.Cmd) *runningSuite {
	t.Helper()
	s := &runningSuite{cmd: cmd}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s.cmd.Stderr = &s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.lines = bufio.NewScanner(stdout)
	return s
}

// firstVerdict reads up to the verdict line of the first check that ran
// and returns it, or "" if the output ended first. The SKIP lines of the
// checks the label filter left out come before any check ran: they are
// not it.
func (s *runningSuite) firstVerdict() string {
	if s.until(func(line string) bool {
		f := strings.Fields(line)
		return len(f) > 1 && isVerdict(f[0]) && f[0] != string(check.SKIP)
	}) {
		return s.lines.Text()
	}
	return ""
}

// until reads up to the first line at, and says whether it came.
func (s *runningSuite) until(at func(line string) bool) bool {
	for s.lines.Scan() {
		s.out += s.lines.Text() + "\n"
		if at(s.lines.Text()) {
			return true
		}
	}
	return false
}

// rest reads what is left of the output.
func (s *runningSuite) rest() {
	for s.lines.Scan() {
		s.out += s.lines.Text() + "\n"
	}
}

func isVerdict(s string) bool {
	switch check.Status(s) {
	case check.PASS, check.FAIL, check.WARN, check.SKIP, check.ERROR:
		return true
	}
	return false
}
