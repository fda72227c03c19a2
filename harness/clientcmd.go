package harness

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/internal/proc"
)

// ClientProcess is one run of a client command under test, in its own
// process group and tagged (internal/proc), so that a kill reaches
// whatever the command started (a shell, an interpreter, its children,
// a child that left the group).
type ClientProcess struct {
	proc    *proc.Proc
	started time.Time
	stdout  proc.Tail
	stderr  proc.Tail
	// result is the file the program may write its result to.
	result resultFile

	mu     sync.Mutex
	killed string
}

// outputLimit bounds what is kept of a client's stdout and stderr: the
// last bytes, where a result follows whatever the program logged.
const outputLimit = 1 << 20

// StartClient runs command with `sh -c`, adding env to the environment.
func StartClient(command string, env []string) (*ClientProcess, error) {
	return StartClientIn("", command, env)
}

// StartClientIn runs command as StartClient does, in the working
// directory dir ("": idemspec's own).
func StartClientIn(dir, command string, env []string) (*ClientProcess, error) {
	p := &ClientProcess{stdout: proc.Tail{Limit: outputLimit}, stderr: proc.Tail{Limit: outputLimit}}
	var err error
	if p.result, err = newResultFile(); err != nil {
		return nil, err
	}
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Env = append(append(os.Environ(), env...), p.result.environ())
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = &p.stdout, &p.stderr
	p.started = time.Now()
	if p.proc, err = proc.Start(cmd); err != nil {
		p.result.remove()
		return nil, fmt.Errorf("start the client %q: %w", command, err)
	}
	return p, nil
}

// Kill sends SIGKILL to the client's process group and descendants,
// saying why.
func (p *ClientProcess) Kill(why string) {
	p.mu.Lock()
	if p.killed == "" {
		p.killed = why
	}
	p.mu.Unlock()
	p.proc.Kill()
}

// Stop ends the client and everything it started, saying why: SIGTERM
// to its process group and descendants, SIGKILL after proc.DefaultGrace.
// It returns once they are gone.
func (p *ClientProcess) Stop(why string) {
	p.mu.Lock()
	if p.killed == "" {
		p.killed = why
	}
	p.mu.Unlock()
	p.proc.Stop(proc.DefaultGrace)
}

// Wait waits for the client to exit, killing it after limit (SIGKILL:
// the limit is the contract's deadline plus its slack), and reads its
// result. When ctx ends first (an interrupt, the run's time limit) the
// client is stopped at once: SIGTERM, then SIGKILL after proc.DefaultGrace.
// It never waits longer than limit plus the kill, and whatever the
// client left running dies with it.
func (p *ClientProcess) Wait(ctx context.Context, limit time.Duration) check.ClientExit {
	timer := time.NewTimer(limit - time.Since(p.started))
	defer timer.Stop()
	select {
	case <-p.proc.Done():
	case <-timer.C:
		p.Kill(fmt.Sprintf("still running after %v", limit))
	case <-ctx.Done():
		p.Stop(fmt.Sprintf("stopped when the run was cut short (%v)", context.Cause(ctx)))
	}
	p.proc.Stop(0)
	x := check.ClientExit{Elapsed: time.Since(p.started), Code: p.proc.ProcessState().ExitCode()}
	p.mu.Lock()
	x.Killed = p.killed
	p.mu.Unlock()
	x.State, x.ResourceID, x.IDs, x.Problem = p.result.read(p.stdout.String())
	return x
}

// Ended says how a client that has exited ended: its exit code (-1 for
// a signal), and why idemspec stopped or killed it ("": it exited by
// itself).
func (p *ClientProcess) Ended() (code int, killed string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.proc.ProcessState().ExitCode(), p.killed
}

// Output is the client's stdout and stderr, cut to their last n bytes.
func (p *ClientProcess) Output(n int) (stdout, stderr string) {
	return tail(p.stdout.String(), n), tail(p.stderr.String(), n)
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// Exited is closed when the client has exited.
func (p *ClientProcess) Exited() <-chan struct{} { return p.proc.Done() }
