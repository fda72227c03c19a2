package main_test

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/internal/testenv"
	"github.com/idemspec/idemspec/reports"
)

// TestMCPSignalStopsEverything: SIGTERM (as SIGINT) ends `idemspec mcp`
// the way its time limit does: the reports are written, marked
// incomplete, exit 2, and every process the audit started is gone, a
// stdio server's children and an HTTP process: server (and its child)
// included; none is left to init. The server is the slow mutant
// (keyed-races holds a lone create for 2 s), so the signal lands mid-audit.
func TestMCPSignalStopsEverything(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		args func(dir string) []string
	}{
		{"stdio", func(dir string) []string {
			return []string{"--cmd", "sleep 300 >/dev/null 2>&1 & echo $! > " + dir + "/child.pid; echo $$ > " + dir + "/server.pid; exec " +
				binary + " serve --mcp --mutant keyed-races --state " + dir + "/state.json"}
		}},
		{"http process", func(dir string) []string {
			file := filepath.Join(dir, "mcp.yaml")
			os.WriteFile(file, []byte(`name: notes over HTTP
mcp:
  url: http://127.0.0.1:{{.Port}}/mcp
process:
  command: sh
  args: [-c, 'sleep 300 >/dev/null 2>&1 & echo $! > `+dir+`/child.pid; echo $$ > `+dir+`/server.pid; exec `+binary+` serve --mcp --addr 127.0.0.1:{{.Port}} --mutant keyed-races --state `+dir+`/state.json']
`), 0o644)
			return []string{"--target", file}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, binary, append([]string{"mcp", "--report-dir", dir}, c.args(dir)...)...)
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			lines := bufio.NewScanner(stdout)
			var out strings.Builder
			for lines.Scan() {
				out.WriteString(lines.Text() + "\n")
				if strings.Contains(lines.Text(), "up to") { // the plan is printed: the checks start
					break
				}
			}
			pids := []int{readPid(t, filepath.Join(dir, "server.pid")), readPid(t, filepath.Join(dir, "child.pid"))}
			if pids[0] == 0 || pids[1] == 0 {
				t.Fatalf("the server did not write its pids: %v\n%s", pids, out.String())
			}
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			for lines.Scan() {
				out.WriteString(lines.Text() + "\n")
			}
			err = cmd.Wait()
			if ctx.Err() != nil {
				t.Fatalf("idemspec mcp did not stop after SIGTERM:\n%s", out.String())
			}
			if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 2 {
				t.Errorf("exit %v, want 2 (incomplete)\n%s%s", err, out.String(), stderr.String())
			}
			r, err := reports.ReadJSON(filepath.Join(dir, "report.json"))
			if err != nil {
				t.Fatalf("no report after SIGTERM: %v\n%s%s", err, out.String(), stderr.String())
			}
			if r.Run.Complete || r.Run.Incomplete != "interrupted by SIGTERM" {
				t.Errorf("run %+v: want incomplete, interrupted by SIGTERM", r.Run)
			}
			for _, f := range []string{"junit.xml", "report.md", "report.html"} {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Error(err)
				}
			}
			notAuditedOnlyWhatRan(t, r, out.String())
			for _, pid := range pids {
				// Stopped means stopped once idemspec exits; a little grace for
				// init to reap what it was left.
				testenv.WaitFor(t, "the server process ended", func() bool { return !alive(pid) })
				if alive(pid) {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		})
	}
}

// notAuditedOnlyWhatRan: in an interrupted audit no tool is PASS unless
// every check that concerns it ran; one with a check that never ran and
// nothing found is NOT AUDITED, in report.json and on the console.
func notAuditedOnlyWhatRan(t *testing.T, r reports.Report, console string) {
	t.Helper()
	notAudited := 0
	for _, row := range r.Tools {
		ran := row.Verdicts != "" && !strings.Contains(row.Verdicts, "not run")
		if row.Verdict == reports.NotAudited {
			notAudited++
			if !strings.Contains(console, "NOT AUDITED "+row.Tool) {
				t.Errorf("the console does not say %s is NOT AUDITED:\n%s", row.Tool, console)
			}
		}
		if (row.Verdict == check.PASS || row.Verdict == check.SKIP) && !ran {
			t.Errorf("tool %s: %s with checks %q: a tool with checks that never ran is NOT AUDITED", row.Tool, row.Verdict, row.Verdicts)
		}
	}
	if notAudited == 0 {
		t.Logf("every tool's checks ran before the signal: %+v", r.Tools)
	}
}

// TestMCPNothingVerifiedExits2: an audit in which no hint on any tool
// could be checked (here every tool is left uncalled) is not green: the
// report is marked incomplete with the reason and the advice (name an
// oracle), the headline is no PASS, and the exit is 2.
func TestMCPNothingVerifiedExits2(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "mcp.yaml")
	var tools strings.Builder
	for _, name := range []string{"put_note", "get_note", "list_notes", "create_note", "append_log"} {
		tools.WriteString("  " + name + ": {skip: not today}\n")
	}
	os.WriteFile(file, []byte("name: notes\nmcp:\n  command: "+binary+" serve --mcp\ntools:\n"+tools.String()), 0o644)
	r := idemspec(t, "mcp", "--target", file, "--report-dir", dir)
	if r.code != 2 || strings.Contains(r.stdout, "\nPASS") || !strings.Contains(r.stdout, "name an oracle") {
		t.Fatalf("exit %d, want 2 with no PASS headline and the advice\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	rep, err := reports.ReadJSON(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Run.Complete || !strings.Contains(rep.Run.Incomplete, "no hint on any tool could be checked") || rep.Verdict() == "PASS" {
		t.Errorf("run %+v, verdict %s: want incomplete, saying nothing was verified", rep.Run, rep.Verdict())
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	if strings.Contains(string(md), "PASS**") {
		t.Errorf("report.md's headline says PASS:\n%s", md)
	}
}

// TestMCPFileOnRunAndValidate: run and validate say to use idemspec mcp
// on a target file with mcp:, not "unknown field".
func TestMCPFileOnRunAndValidate(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "mcp.yaml")
	os.WriteFile(file, []byte("name: notes\nmcp:\n  command: idemspec serve --mcp\noracle: {tool: list_notes}\n"), 0o644)
	for _, args := range [][]string{{"validate", file}, {"run", "--target", file, "--report-dir", t.TempDir()}} {
		r := idemspec(t, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "idemspec mcp --target "+file) || strings.Contains(r.stderr, "unknown field") {
			t.Errorf("idemspec %v: exit %d, stderr %q; want 2 and the advice to use idemspec mcp --target", args, r.code, r.stderr)
		}
	}
}

// TestMCPOracleFlagKeepsTheFileArgs: --oracle names the tool; the args
// the file gives its oracle stay.
func TestMCPOracleFlagKeepsTheFileArgs(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "mcp.yaml")
	os.WriteFile(file, []byte("name: notes\nmcp:\n  command: "+binary+" serve --mcp\noracle: {args: {name: probe}}\n"), 0o644)
	r := idemspec(t, "mcp", "--target", file, "--oracle", "get_note", "--dry-run")
	if r.code != 0 || !strings.Contains(r.stdout, `oracle get_note (named, called with {"name":"probe"})`) {
		t.Errorf("exit %d, want 0 and the oracle with the file's args\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestMCPUnsetVariable: an unset ${VAR} in mcp.env or mcp.command is an
// error naming the file, the line and the field, as everywhere in a
// target file; nothing is started.
func TestMCPUnsetVariable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := filepath.Join(dir, "env.yaml")
	os.WriteFile(env, []byte("name: notes\nmcp:\n  command: idemspec serve --mcp\n  env:\n    TOKEN: ${IDEMSPEC_TEST_UNSET_VAR}\n"), 0o644)
	command := filepath.Join(dir, "command.yaml")
	os.WriteFile(command, []byte("name: notes\nmcp:\n  command: idemspec serve --mcp --token ${IDEMSPEC_TEST_UNSET_VAR}\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "--target", env}, env + `:5: mcp.env.TOKEN: environment variable "IDEMSPEC_TEST_UNSET_VAR" is not set`},
		{[]string{"mcp", "--target", command}, command + `:3: mcp.command: environment variable "IDEMSPEC_TEST_UNSET_VAR" is not set`},
		{[]string{"mcp", "--cmd", "idemspec serve --mcp ${IDEMSPEC_TEST_UNSET_VAR}"}, `--cmd: environment variable "IDEMSPEC_TEST_UNSET_VAR" is not set`},
	} {
		r := idemspec(t, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("idemspec %v: exit %d, stderr %q; want 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// mcpCheck finds one check of an MCP report by ID and tool.
func mcpCheck(t *testing.T, r reports.Report, id, tool string) reports.CheckResult {
	t.Helper()
	for _, c := range r.Checks {
		if c.ID == id && c.Subject == tool {
			return c
		}
	}
	t.Fatalf("the report has no %s %s", id, tool)
	return reports.CheckResult{}
}

// TestMCPCrashAfterTheAnswerIsNoEvidence: a crash that comes after the
// call's answer (here a process.crash_window that starts after the
// tool's work ends) cut nothing, and the crash-unsafe
// idempotent-torn-replace mutant PASSed M3 on it. M3 is ERROR naming
// the moment its crash waited for; with the default window, the same
// mutant FAILs M3.
func TestMCPCrashAfterTheAnswerIsNoEvidence(t *testing.T) {
	long(t)
	t.Parallel()
	for _, c := range []struct {
		name, window string
		want         check.Status
		code         int
	}{
		{"a window after the work", "crash_window: 2s-2s", check.ERROR, 2},
		{"the default window", "", check.FAIL, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "reports")
			file := filepath.Join(filepath.Dir(dir), "mcp.yaml")
			if err := os.WriteFile(file, []byte(`name: notes over HTTP
mcp:
  url: http://127.0.0.1:{{.Port}}/mcp
process:
  command: "{{.Idemspec}}"
  args: [serve, --mcp, --addr, "127.0.0.1:{{.Port}}", --mutant, idempotent-torn-replace, --state, "{{.ReportDir}}/state.json"]
  `+c.window+`
`), 0o644); err != nil {
				t.Fatal(err)
			}
			r := idemspec(t, "mcp", "--target", file, "--report-dir", dir)
			rep, err := reports.ReadJSON(filepath.Join(dir, "report.json"))
			if err != nil {
				t.Fatalf("%v\nstdout:\n%s\nstderr:\n%s", err, r.stdout, r.stderr)
			}
			m3 := mcpCheck(t, rep, "M3", "put_note")
			if m3.Verdict != c.want || r.code != c.code {
				t.Fatalf("M3 put_note %s (%s), exit %d; want %s, exit %d\nstdout:\n%s\nstderr:\n%s", m3.Verdict, m3.Reason, r.code, c.want, c.code, r.stdout, r.stderr)
			}
			if c.want != check.ERROR {
				return
			}
			for _, want := range []string{"did not land mid-call", "2s after the call was delivered", "process.crash_window starts at 2s"} {
				if !strings.Contains(m3.Reason, want) {
					t.Errorf("M3's reason does not say %q: %s", want, m3.Reason)
				}
			}
		})
	}
}
