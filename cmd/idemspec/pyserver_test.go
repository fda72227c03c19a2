package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/internal/testenv"
)

// pythonServer is a target file that runs an idempotent create API
// written in Python's standard library (http.server and SQLite) as a
// managed process: the shape of `idemspec serve`, in another language
// and HTTP stack. Its paths are relative to this package's directory.
var pythonServer = filepath.Join("testdata", "pyserver", "target.yaml")

// TestPythonServerPassesEverything runs the whole default suite, the
// property search included, against the Python server: a correct server
// built the way a small service is (a thread per connection, one SQLite
// connection, the key claimed by its primary key before a 200 ms work
// and stored with the resource) passes every check, restarts and
// crashes included, and idemspec leaves no process of it behind.
func TestPythonServerPassesEverything(t *testing.T) {
	long(t)
	t.Parallel()
	requireTool(t, "python3", "python3")
	dir := t.TempDir()
	// Registered after TempDir, so it runs before the directory goes, and
	// runs after a Fatal too (a run that did not finish in time).
	t.Cleanup(func() {
		if t.Failed() {
			logTargetTimes(t, filepath.Join(dir, "target.log"))
		}
	})
	// Ten sequences, not 25, and no new one after 90 s: what is under
	// test is that every check passes, restarts and crashes included,
	// and the search's share of a run against this server is highest.
	// Its time is the machine's: quiet, the search takes 10 s; in a CI
	// run whose harness tests took 15 times their quiet time, 303 s. So
	// the run is bounded by the test binary's deadline, not a fixed
	// six minutes (idemspec bounds its own waits). A request may take
	// 30 s, not the default 10: in a pair of test suites at load 44 a
	// create without the key waited longer than 10 s for its answer (a
	// thread per connection, under two suites' load).
	ctx, cancel := testenv.UntilDeadline(t)
	defer cancel()
	r := runWithin(ctx, t, []string{"PYTHON=" + python()}, "--target", pythonServer, "--report-dir", dir, "--sequences", "10", "--search-time", "90s", "--request-timeout", "30s")
	for _, c := range r.report.Checks {
		// The file declares everything a check needs (tenants, a
		// look-up, a fail trigger, a process to restart and crash), so
		// not even a SKIP is acceptable.
		if c.Verdict != check.PASS {
			t.Errorf("%s: %s: %s", c.ID, c.Verdict, c.Reason)
		}
	}
	if len(r.report.Checks) != len(serverChecks()) {
		t.Errorf("%d checks ran, want the %d server checks", len(r.report.Checks), len(serverChecks()))
	}
	if r.code != 0 {
		t.Errorf("exit %d, want 0\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, pid := range startedPids(t, dir) {
		if runsIn(pid, dir) {
			t.Errorf("target process %d (started by idemspec) is still running", pid)
		}
	}
	if left := processesUsing(t, dir); len(left) > 0 {
		t.Errorf("processes left behind: %v", left)
	}
}

// logTargetTimes shows what a failed run's target log says of the
// server's starts and stops (idemspec's own lines, with their times:
// where a slow run's time went) and the log's end. The log goes with
// the temporary directory.
func logTargetTimes(t *testing.T, path string) {
	log, err := os.ReadFile(path)
	if err != nil {
		t.Logf("target log: %v", err)
		return
	}
	var notes []string
	for line := range strings.Lines(string(log)) {
		if strings.HasPrefix(line, "idemspec ") {
			notes = append(notes, line)
		}
	}
	t.Logf("target.log, idemspec's %d lines:\n%s", len(notes), strings.Join(notes, ""))
	t.Logf("target.log, last %d bytes:\n%s", min(len(log), 8000), log[max(0, len(log)-8000):])
}
