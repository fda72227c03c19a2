package main_test

import (
	"context"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/reports"
)

// commandNames are the subcommands a user types; completion and help
// come from the CLI library.
var commandNames = []string{"agent", "client", "explain", "init", "list", "mcp", "report", "run", "serve", "validate", "version"}

// TestHelpGoesToStdoutAndExitsZero: -h, --help and `help CMD` print the
// command's usage, GNU-style flags included, on stdout and exit 0.
func TestHelpGoesToStdoutAndExitsZero(t *testing.T) {
	t.Parallel()
	for _, name := range commandNames {
		for _, args := range [][]string{{name, "--help"}, {name, "-h"}, {"help", name}} {
			r := idemspec(t, args...)
			if r.code != 0 || r.stderr != "" || !strings.Contains(r.stdout, "Usage:\n  idemspec "+name) {
				t.Errorf("idemspec %v: exit %d, stderr %q, stdout:\n%s", args, r.code, r.stderr, r.stdout)
			}
		}
	}
	r := idemspec(t, "--help")
	for _, name := range append(commandNames, "completion") {
		if !strings.Contains(r.stdout, "\n  "+name+" ") {
			t.Errorf("idemspec --help does not list %s:\n%s", name, r.stdout)
		}
	}
	run := idemspec(t, "run", "--help").stdout
	for _, flag := range []string{"--target FILE", "--report-dir string", "--allow-remote", "--wait duration", "-v, --verbose", "IDEMSPEC_"} {
		if flag == "IDEMSPEC_" {
			run = idemspec(t, "--help").stdout
		}
		if !strings.Contains(run, flag) {
			t.Errorf("help lacks %q:\n%s", flag, run)
		}
	}
}

// TestUsageErrorsExitTwo: an unknown command, flag or argument exits 2
// with one line saying what and where to read more, never a stack.
func TestUsageErrorsExitTwo(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"nosuch"}, `unknown command "nosuch"`},
		{[]string{"run", "--no-such-flag"}, "unknown flag: --no-such-flag"},
		{[]string{"run", "extra"}, `unknown command "extra"`},
		{[]string{"validate"}, "accepts 1 arg(s), received 0"},
		{[]string{"run", "--burst", "many"}, `invalid argument "many" for "--burst"`},
	} {
		r := idemspec(t, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || !strings.Contains(r.stderr, "--help' for usage") || strings.Contains(r.stderr, "goroutine ") {
			t.Errorf("idemspec %v: exit %d, stderr %q; want exit 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// TestSingleDashLongFlagsStillWork: scripts written for Go's flag package
// (-target x, -label-filter=y) keep working.
func TestSingleDashLongFlagsStillWork(t *testing.T) {
	r := idemspec(t, "run", "-target", "fake:reference", "-label-filter=S3", "-dry-run")
	if r.code != 0 || !planned(r.stdout, "S3") || planned(r.stdout, "S1") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// planned says whether a dry run's plan has a row for check id.
func planned(plan, id string) bool {
	for _, line := range strings.Split(plan, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == id {
			return true
		}
	}
	return false
}

// TestFlagsFromEnvironment: IDEMSPEC_<FLAG> stands in for a flag, the
// command line wins, and a bad value is refused naming the variable.
func TestFlagsFromEnvironment(t *testing.T) {
	r := idemspecEnv(t, []string{"IDEMSPEC_LABEL_FILTER=S2"}, "run", "--dry-run")
	if r.code != 0 || !planned(r.stdout, "S2") || planned(r.stdout, "S1") {
		t.Errorf("IDEMSPEC_LABEL_FILTER=S2: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = idemspecEnv(t, []string{"IDEMSPEC_LABEL_FILTER=S2"}, "run", "--dry-run", "--label-filter", "S4")
	if r.code != 0 || !planned(r.stdout, "S4") || planned(r.stdout, "S2") {
		t.Errorf("the flag must win over IDEMSPEC_LABEL_FILTER: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = idemspecEnv(t, []string{"IDEMSPEC_FORMAT=markdown"}, "list")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "#") {
		t.Errorf("IDEMSPEC_FORMAT=markdown: exit %d\n%.200s", r.code, r.stdout)
	}
	// A value of the right type but out of range names the variable
	// too: the flag refuses it as it is set, not in a later check that
	// knew only the flag's name.
	for _, bad := range []string{"IDEMSPEC_BURST=many", "IDEMSPEC_BURST=5000", "IDEMSPEC_SHARD=0/2", "IDEMSPEC_SHARD=1/1000", "IDEMSPEC_REPEATS=1"} {
		name, value, _ := strings.Cut(bad, "=")
		r = idemspecEnv(t, []string{bad}, "run", "--dry-run")
		if r.code != 2 || !strings.Contains(r.stderr, fmt.Sprintf("%s=%q", name, value)) || strings.Count(r.stderr, "\n") != 2 {
			t.Errorf("%s: exit %d, stderr %q; want 2 and an error naming %s", bad, r.code, r.stderr, name)
		}
	}
	r = idemspecEnv(t, []string{"IDEMSPEC_ATTEMPT_BUDGET=0"}, "client", "--cmd", "true")
	if r.code != 2 || !strings.Contains(r.stderr, `IDEMSPEC_ATTEMPT_BUDGET="0"`) {
		t.Errorf("IDEMSPEC_ATTEMPT_BUDGET=0: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestCompletionScripts(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		r := idemspec(t, "completion", shell)
		if r.code != 0 || !strings.Contains(r.stdout, "idemspec") || len(r.stdout) < 500 {
			t.Errorf("completion %s: exit %d, %d bytes, stderr %q", shell, r.code, len(r.stdout), r.stderr)
		}
	}
	if _, err := exec.LookPath("bash"); err == nil {
		script := filepath.Join(t.TempDir(), "idemspec.bash")
		os.WriteFile(script, []byte(idemspec(t, "completion", "bash").stdout), 0o644)
		if out, err := exec.Command("bash", "-n", script).CombinedOutput(); err != nil {
			t.Errorf("the bash completion does not parse: %v\n%s", err, out)
		}
	}
}

// TestListFakes: each built-in fake and mutant client has one line, with
// the checks that must catch it.
func TestListFakes(t *testing.T) {
	r := idemspec(t, "list", "--fakes")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	lines := strings.Split(r.stdout, "\n")
	find := func(prefix string) string {
		var found []string
		for _, l := range lines {
			if f := strings.Fields(l); len(f) > 0 && (f[0] == prefix || len(f) > 1 && f[0]+" "+f[1] == prefix || len(f) > 2 && strings.Join(f[:3], " ") == prefix) {
				found = append(found, l)
			}
		}
		if len(found) != 1 {
			t.Errorf("%d lines for %s in:\n%s", len(found), prefix, r.stdout)
			return ""
		}
		return found[0]
	}
	find("fake:" + fakes.Reference)
	find("--bug " + fakes.Reference)
	for _, m := range fakes.Mutants() {
		prefix := "fake:" + m.Name
		switch m.Of {
		case fakes.OfClient:
			prefix = "--bug " + m.Name
		case fakes.OfWorkflow:
			prefix = "--workflow --bug " + m.Name
		case fakes.OfMCP:
			prefix = "--mcp --mutant " + m.Name
		}
		line := find(prefix)
		for _, id := range append(m.CaughtBy(), m.Multi...) {
			if line != "" && !strings.Contains(line, id) {
				t.Errorf("the line of %s does not name %s: %q", m.Name, id, line)
			}
		}
	}
}

// downTarget is a target file for an API that is not listening (yet) on
// port: the file is good, the target unreachable.
func downTarget(t *testing.T, port int) string {
	return writeFile(t, "down.yaml", fmt.Sprintf(`name: not-yet-up
base_url: http://127.0.0.1:%d
create:
  path: /resources
  body: '{"marker": "{{.Marker}}", "amount": {{.Variant}}}'
  id_field: id
oracle:
  list:
    path: /resources?marker={{.Marker}}
    items: items
`, port))
}

// notRunReport reads the reports of a run that could not start and
// checks CI can show them: every selected check an ERROR naming the
// cause, in report.json and junit.xml alike.
func notRunReport(t *testing.T, dir string, ids []string, cause string) {
	t.Helper()
	rep, err := reports.ReadJSON(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Run.Complete || rep.Summary.Error != len(ids) || len(rep.Checks) != len(ids) {
		t.Errorf("report: complete %v, summary %+v; want %d ERRORs", rep.Run.Complete, rep.Summary, len(ids))
	}
	for i, c := range rep.Checks {
		if i >= len(ids) || c.ID != ids[i] || c.Verdict != check.ERROR || !strings.Contains(c.Reason, cause) {
			t.Errorf("check %d: %s %s %q; want %v ERROR with %q", i, c.ID, c.Verdict, c.Reason, ids, cause)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Suites []struct {
			Errors int `xml:"errors,attr"`
			Cases  []struct {
				Name  string `xml:"name,attr"`
				Error *struct {
					Message string `xml:"message,attr"`
				} `xml:"error"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &suites); err != nil || len(suites.Suites) == 0 {
		t.Fatalf("junit.xml: %v\n%s", err, data)
	}
	var errs int
	for _, s := range suites.Suites {
		for _, c := range s.Cases {
			if c.Error == nil || !strings.Contains(c.Error.Message, cause) {
				t.Errorf("junit testcase %q: %+v; want an error with %q", c.Name, c.Error, cause)
			}
			errs++
		}
	}
	if errs != len(ids) {
		t.Errorf("junit.xml holds %d error testcases, want %d", errs, len(ids))
	}
	for _, f := range []string{"report.md", "report.html"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

// TestUnstartableRunsStillReport: an unreachable target and a target file
// that names its target but does not load still leave reports CI can
// show, with exit 2; a file that names nothing, and a dry run, leave none.
func TestUnstartableRunsStillReport(t *testing.T) {
	down := downTarget(t, freePort(t))
	dir := t.TempDir()
	r := idemspec(t, "run", "--target", down, "--report-dir", dir, "--label-filter", "S1 || S3")
	if r.code != 2 || !strings.Contains(r.stderr, "is not reachable") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	notRunReport(t, dir, []string{"S1", "S3"}, "is not reachable")

	bad := writeFile(t, "bad.yaml", "name: half-written\nbase_url: http://127.0.0.1:1\ncreate:\n  path: /r\n")
	dir = t.TempDir()
	r = idemspec(t, "run", "--target", bad, "--report-dir", dir, "--label-filter", "S2")
	if r.code != 2 || !strings.Contains(r.stderr, "bad.yaml") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	notRunReport(t, dir, []string{"S2"}, "bad.yaml")
	if rep, _ := reports.ReadJSON(filepath.Join(dir, "report.json")); rep.Target.Name != "half-written" {
		t.Errorf("the report names the target %q", rep.Target.Name)
	}

	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"--target", writeFile(t, "junk.yaml", "[not a target")}, 2},
		{[]string{"--target", down, "--dry-run"}, 0},
	} {
		dir = t.TempDir()
		r = idemspec(t, append([]string{"run", "--report-dir", dir}, c.args...)...)
		if entries, _ := os.ReadDir(dir); r.code != c.code || len(entries) != 0 {
			t.Errorf("idemspec run %v: exit %d, wrote %d files; want exit %d and none", c.args, r.code, len(entries), c.code)
		}
	}
}

// TestWaitForAStartingService: with --wait, a target that starts a moment
// after idemspec is waited for and tested; an interrupt while waiting
// still leaves reports.
func TestWaitForAStartingService(t *testing.T) {
	port := freePort(t)
	file := downTarget(t, port)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := startRun(t, ctx, "--target", file, "--report-dir", dir, "--label-filter", "S1", "--wait", "60s")
	waiting := make(chan bool, 1)
	go func() {
		for s.lines.Scan() {
			s.out += s.lines.Text() + "\n"
			if strings.Contains(s.lines.Text(), "waiting up to 1m0s") {
				waiting <- true
				break
			}
		}
		close(waiting)
	}()
	if !<-waiting {
		t.Fatalf("no waiting line:\n%s%s", s.out, s.stderr.String())
	}
	serve := exec.CommandContext(ctx, binary, "serve", "--addr", fmt.Sprintf("127.0.0.1:%d", port), "--db", filepath.Join(t.TempDir(), "db"))
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { serve.Process.Signal(os.Interrupt); serve.Wait() }()
	s.rest()
	if err := s.cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s%s", err, s.out, s.stderr.String())
	}
	if !strings.Contains(s.out, "PASS  S1") {
		t.Errorf("S1 did not pass:\n%s", s.out)
	}

	// Interrupted while waiting: the reports say so.
	dir = t.TempDir()
	s = startRun(t, ctx, "--target", downTarget(t, freePort(t)), "--report-dir", dir, "--label-filter", "S2", "--wait", "60s")
	for s.lines.Scan() {
		if strings.Contains(s.lines.Text(), "waiting up to") {
			break
		}
	}
	s.cmd.Process.Signal(syscall.SIGINT)
	s.rest()
	if err := s.cmd.Wait(); s.cmd.ProcessState.ExitCode() != 2 {
		t.Fatalf("interrupted while waiting: %v\n%s", err, s.stderr.String())
	}
	notRunReport(t, dir, []string{"S2"}, "interrupted")
}
