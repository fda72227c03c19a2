package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/retry/state"
	"github.com/idemspec/idemspec/internal/proc"
)

// ClientProcess is one run of a client command under test, in its own
// process group and tagged (internal/proc), so that a kill reaches
// whatever the command started (a shell, an interpreter, its children,
// a child that left the group).
type ClientProcess struct {
	proc    *proc.Proc
	started time.Time
	stdout  proc.Buffer
	stderr  proc.Buffer

	mu     sync.Mutex
	killed string
}

// outputLimit bounds what is kept of a client's stdout and stderr.
const outputLimit = 1 << 20

// StartClient runs command with `sh -c`, adding env to the environment.
func StartClient(command string, env []string) (*ClientProcess, error) {
	p := &ClientProcess{stdout: proc.Buffer{Limit: outputLimit}, stderr: proc.Buffer{Limit: outputLimit}}
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = &p.stdout, &p.stderr
	p.started = time.Now()
	var err error
	if p.proc, err = proc.Start(cmd); err != nil {
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
	x.State, x.ResourceID, x.IDs, x.Problem = readResult(p.stdout.String())
	return x
}

// Output is the client's stdout and stderr, cut to their last n bytes.
func (p *ClientProcess) Output(n int) (stdout, stderr string) {
	return tail(p.stdout.String(), n), tail(p.stderr.String(), n)
}

// readResult parses the result the contract asks for on the last
// non-empty stdout line: a create's resource id, or a job's ids by step.
func readResult(stdout string) (end, resourceID string, ids map[string]string, problem string) {
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if last == "" {
		return "", "", nil, "no output on stdout"
	}
	var r struct {
		State      string         `json:"state"`
		ResourceID any            `json:"resource_id"`
		IDs        map[string]any `json:"ids"`
	}
	if err := json.Unmarshal([]byte(last), &r); err != nil {
		return "", "", nil, fmt.Sprintf("the last stdout line is not a JSON result: %v", err)
	}
	switch state.State(r.State) {
	case state.Succeeded, state.UnknownResult, state.Failed:
	default:
		return "", "", nil, fmt.Sprintf("state %q is not %s, %s or %s", r.State, state.Succeeded, state.UnknownResult, state.Failed)
	}
	if r.ResourceID != nil {
		resourceID = fmt.Sprint(r.ResourceID)
	}
	for step, id := range r.IDs {
		if id == nil {
			continue
		}
		if ids == nil {
			ids = map[string]string{}
		}
		ids[step] = fmt.Sprint(id)
	}
	return r.State, resourceID, ids, ""
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// Exited is closed when the client has exited.
func (p *ClientProcess) Exited() <-chan struct{} { return p.proc.Done() }
