package main_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/idemspec/idemspec/internal/testenv"
	"github.com/idemspec/idemspec/reports"
)

// TestClientInterruptStopsTheProgram: in every client mode a SIGINT or
// SIGTERM (once or twice) or the run's time limit stops the program
// under test at once, its process group and what it started included,
// and the reports follow: the run ends long before the program's 60 s
// deadline and leaves nothing running. The program writes the pids of
// its shell and of a sleep it starts (over MCP stdio, of the relay to
// the reference server too), then waits.
func TestClientInterruptStopsTheProgram(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		args    []string
		signals []os.Signal
		reason  string // what report.json says made the run incomplete
	}{
		{"SIGINT", nil, []os.Signal{os.Interrupt}, "interrupted by SIGINT"},
		{"SIGTERM, workflow", []string{"--workflow"}, []os.Signal{syscall.SIGTERM}, "interrupted by SIGTERM"},
		{"SIGTERM, MCP over stdio", []string{"--mcp"}, []os.Signal{syscall.SIGTERM}, "interrupted by SIGTERM"},
		{"SIGINT, MCP over HTTP", []string{"--mcp", "--mcp-transport", "http"}, []os.Signal{os.Interrupt}, "interrupted by SIGINT"},
		{"two signals", nil, []os.Signal{os.Interrupt, os.Interrupt}, "interrupted by SIGINT"},
		{"the run's time limit", []string{"--label-filter", "C1", "--timeout", "5s"}, nil, "time limit"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			pids := filepath.Join(dir, "pids")
			program := fmt.Sprintf("echo $$ >> %[1]s; sleep 6041 & echo $! >> %[1]s; ", pids)
			if strings.Join(c.args, " ") == "--mcp" {
				program += fmt.Sprintf(`sleep 6041 | eval "$IDEMSPEC_MCP_COMMAND" >/dev/null & echo $! >> %s; `, pids)
			}
			program += "wait"
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			args := append([]string{"client", "--cmd", program, "--deadline", "60s", "--report-dir", dir}, c.args...)
			cmd, exited, out := startIdemspec(t, ctx, args...)
			want := 2
			if strings.Join(c.args, " ") == "--mcp" {
				want = 3
			}
			started := awaitPids(t, exited, pids, want, out)
			since := time.Now()
			for _, s := range c.signals {
				if err := cmd.Process.Signal(s); err != nil {
					t.Fatal(err)
				}
			}
			err := <-exited
			took := time.Since(since)
			defer func() {
				for _, pid := range started {
					syscall.Kill(pid, syscall.SIGKILL) // only if the test failed: they are gone
				}
			}()
			if ctx.Err() != nil {
				t.Fatalf("idemspec did not end:\n%s", out.String())
			}
			// The program's deadline is 60 s: a run that ends before it
			// stopped the program itself (the pids below are the proof;
			// this bound leaves a loaded machine room, not a stopwatch).
			if took > 50*time.Second {
				t.Errorf("idemspec took %v to end after the program started and the signal or time limit came", took)
			}
			stoppedIncomplete(t, err, started, dir, c.reason, out.String())
			if c.signals != nil && strings.Contains(out.String(), "not selected") {
				t.Errorf("the console calls checks the run selected \"not selected\":\n%s", out.String())
			}
			log, _ := os.ReadFile(filepath.Join(dir, "ginkgo.log"))
			if goroutineDump.Match(log) {
				t.Errorf("ginkgo.log holds a goroutine dump:\n%s", log)
			}
		})
	}
}

// startIdemspec starts `idemspec args...`, killed when ctx ends, its
// stdout and stderr in out; exited yields what its Wait returns.
func startIdemspec(t *testing.T, ctx context.Context, args ...string) (cmd *exec.Cmd, exited <-chan error, out *strings.Builder) {
	t.Helper()
	cmd = exec.CommandContext(ctx, binary, args...)
	out = new(strings.Builder)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	wait := make(chan error, 1)
	go func() { wait <- cmd.Wait() }()
	return cmd, wait, out
}

// awaitPids waits until the program idemspec started has written n
// pids to path (pidsIn), and fails the test if idemspec ends first.
func awaitPids(t *testing.T, exited <-chan error, path string, n int, out *strings.Builder) []int {
	t.Helper()
	var started []int
	for len(started) < n {
		select {
		case err := <-exited:
			t.Fatalf("idemspec ended (%v) before the program wrote its pids:\n%s", err, out.String())
		case <-time.After(20 * time.Millisecond):
		}
		started = pidsIn(path)
	}
	return started
}

// stoppedIncomplete holds a run a signal or a time limit stopped to its
// promise: exit 2 (err is its Wait's), every pid in started gone, and
// the report in dir marked incomplete for reason; it returns the report.
func stoppedIncomplete(t *testing.T, err error, started []int, dir, reason, out string) reports.Report {
	t.Helper()
	if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 2 {
		t.Errorf("exit %v, want 2 (incomplete)\n%s", err, out)
	}
	for _, pid := range started {
		testenv.WaitFor(t, fmt.Sprintf("pid %d gone", pid), func() bool { return !alive(pid) })
	}
	r, err := reports.ReadJSON(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatalf("no report: %v\n%s", err, out)
	}
	if r.Run.Complete || !strings.Contains(r.Run.Incomplete, reason) {
		t.Errorf("run %+v: want incomplete, %q", r.Run, reason)
	}
	return r
}

// goroutineDump is the head of one goroutine's stack in a dump.
var goroutineDump = regexp.MustCompile(`goroutine \d+ \[`)

// pidsIn reads the pids a program wrote, one a line.
func pidsIn(path string) []int {
	b, _ := os.ReadFile(path)
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			out = append(out, pid)
		}
	}
	return out
}
