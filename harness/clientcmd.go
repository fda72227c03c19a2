package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/idemspec/idemspec/harness/check"
)

// ClientProcess is one run of a client command under test, in its own
// process group so that a kill reaches whatever the command started
// (a shell, an interpreter, its children).
type ClientProcess struct {
	cmd     *exec.Cmd
	started time.Time
	stdout  bytes.Buffer
	stderr  bytes.Buffer
	done    chan struct{}

	mu     sync.Mutex
	killed string
}

// outputLimit bounds what is kept of a client's stdout and stderr.
const outputLimit = 1 << 20

// StartClient runs command with `sh -c`, adding env to the environment.
func StartClient(command string, env []string) (*ClientProcess, error) {
	p := &ClientProcess{done: make(chan struct{})}
	p.cmd = exec.Command("/bin/sh", "-c", command)
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout = &limitedWriter{w: &p.stdout, n: outputLimit}
	p.cmd.Stderr = &limitedWriter{w: &p.stderr, n: outputLimit}
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// A grandchild that left the group must not keep Wait on its pipes.
	p.cmd.WaitDelay = 2 * time.Second
	p.started = time.Now()
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the client %q: %w", command, err)
	}
	go func() {
		p.cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// Kill sends SIGKILL to the client's process group, saying why.
func (p *ClientProcess) Kill(why string) {
	p.mu.Lock()
	if p.killed == "" {
		p.killed = why
	}
	p.mu.Unlock()
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
}

// Wait waits for the client to exit, killing it after limit, and reads
// its result. It never waits longer than limit plus the kill.
func (p *ClientProcess) Wait(limit time.Duration) check.ClientExit {
	timer := time.NewTimer(limit - time.Since(p.started))
	defer timer.Stop()
	select {
	case <-p.done:
	case <-timer.C:
		p.Kill(fmt.Sprintf("still running after %v", limit))
		<-p.done
	}
	// A child the command left behind dies with the group.
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	x := check.ClientExit{Elapsed: time.Since(p.started), Code: p.cmd.ProcessState.ExitCode()}
	p.mu.Lock()
	x.Killed = p.killed
	p.mu.Unlock()
	x.State, x.ResourceID, x.Problem = readResult(p.stdout.String())
	return x
}

// Output is the client's stdout and stderr, cut to their last n bytes.
func (p *ClientProcess) Output(n int) (stdout, stderr string) {
	return tail(p.stdout.String(), n), tail(p.stderr.String(), n)
}

// readResult parses the result the contract asks for on the last
// non-empty stdout line.
func readResult(stdout string) (state, resourceID, problem string) {
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if last == "" {
		return "", "", "no output on stdout"
	}
	var r struct {
		State      string `json:"state"`
		ResourceID any    `json:"resource_id"`
	}
	if err := json.Unmarshal([]byte(last), &r); err != nil {
		return "", "", fmt.Sprintf("the last stdout line is not a JSON result: %v", err)
	}
	switch r.State {
	case check.ClientSucceeded, check.ClientUnknown, check.ClientFailed:
	default:
		return "", "", fmt.Sprintf("state %q is not SUCCEEDED, UNKNOWN_RESULT or FAILED", r.State)
	}
	if r.ResourceID != nil {
		resourceID = fmt.Sprint(r.ResourceID)
	}
	return r.State, resourceID, ""
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// limitedWriter keeps the first n bytes and drops the rest, so a chatty
// client cannot fill memory; it never fails the client's write.
type limitedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
	n  int
}

func (l *limitedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if room := l.n - l.w.Len(); room > 0 {
		l.w.Write(b[:min(len(b), room)])
	}
	return len(b), nil
}

// Exited is closed when the client has exited.
func (p *ClientProcess) Exited() <-chan struct{} { return p.done }
