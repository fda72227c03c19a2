package proc_test

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/idemspec/idemspec/internal/proc"
	"github.com/idemspec/idemspec/internal/proc/proctest"
)

// Run ends within its bound plus the grace, whatever the command does,
// and leaves nothing it started.
func TestRunLeavesNothingBehind(t *testing.T) {
	for _, h := range proctest.Hostiles() {
		t.Run(h.Name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			var out bytes.Buffer
			// After the hostile part, the shell itself ignores SIGTERM.
			cmd := exec.Command("sh", "-c", "echo started; "+h.Line+"trap '' TERM; sleep 999")
			cmd.Stdout, cmd.Stderr = &out, &out
			start := time.Now()
			err := proc.Run(ctx, cmd, 300*time.Millisecond)
			if took := time.Since(start); !proctest.Stopped(took) {
				t.Errorf("Run took %v for a 200ms bound and 300ms grace", took)
			}
			if !errors.Is(err, proc.ErrTimeout) {
				t.Errorf("Run: %v, want a timeout", err)
			}
			if left := proctest.GoneSoon(h.Sleep); len(left) > 0 {
				t.Errorf("pids %v still run %q", left, h.Sleep)
			}
			if !strings.Contains(out.String(), "started") {
				t.Errorf("output %q lost", out.String())
			}
		})
	}
}

// A command that exits at once, leaving a double-forked child holding its
// output pipe, returns at once and the child is killed.
func TestRunKillsWhatAFinishedCommandLeft(t *testing.T) {
	h := proctest.Hostiles()[1]
	var out bytes.Buffer
	cmd := exec.Command("sh", "-c", h.Line+"echo 7")
	cmd.Stdout = &out
	start := time.Now()
	if err := proc.Run(context.Background(), cmd, time.Second); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); !proctest.Stopped(took) {
		t.Errorf("Run took %v: it waited for the child holding its output", took)
	}
	if strings.TrimSpace(out.String()) != "7" {
		t.Errorf("output %q, want 7", out.String())
	}
	if left := proctest.GoneSoon(h.Sleep); len(left) > 0 {
		t.Errorf("pids %v still run %q", left, h.Sleep)
	}
}

// RunKeep leaves what a hook started after a normal exit.
func TestRunKeepLeavesWhatAHookStarted(t *testing.T) {
	sleep := proctest.Sleep()
	cmd := exec.Command("sh", "-c", sleep+" >/dev/null 2>&1 &")
	if err := proc.RunKeep(context.Background(), cmd, time.Second); err != nil {
		t.Fatal(err)
	}
	// The hook's shell has exited; the child it put in the background may
	// be between fork and exec for a moment, when /proc shows no command
	// line: look again for a while (a minute at most on a busy machine).
	left := proctest.Alive(sleep)
	for deadline := time.Now().Add(time.Minute); len(left) == 0 && time.Now().Before(deadline); left = proctest.Alive(sleep) {
		time.Sleep(10 * time.Millisecond)
	}
	for _, pid := range left {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	if len(left) != 1 {
		t.Fatalf("want the started process alive, found %v", left)
	}
}

// Stop with a grace: SIGTERM first, and a command that honours it stops
// gracefully.
func TestStopIsGracefulFirst(t *testing.T) {
	p, err := proc.Start(exec.Command("sh", "-c", "sleep 30 & wait"))
	if err != nil {
		t.Fatal(err)
	}
	s := p.Stop(5 * time.Second)
	if !s.Graceful || !s.Reaped {
		t.Errorf("Stop = %+v, want graceful and reaped", s)
	}
}
