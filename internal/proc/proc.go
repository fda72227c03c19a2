package proc

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// TagVar is the environment variable that marks a command's descendants.
const TagVar = "IDEMSPEC_PROC"

// DefaultGrace is how long a stop waits after SIGTERM before SIGKILL.
const DefaultGrace = 2 * time.Second

// drainWait bounds the wait for a command's output once everything it
// started is dead: a descendant nobody could find may hold the pipe.
const drainWait = time.Second

// reapWait bounds the wait for the command itself after SIGKILL.
const reapWait = 10 * time.Second

// Proc is a started command.
type Proc struct {
	cmd   *exec.Cmd
	tag   string
	done  chan struct{} // closed once the command exited and was reaped
	err   error         // Wait's error, set before done is closed
	pipes []*os.File    // read ends of output pipes idemspec copies from
	drain sync.WaitGroup

	mu      sync.Mutex
	stopped bool
}

// Stopped says how a stop went.
type Stopped struct {
	// Graceful: the command exited within the grace period of SIGTERM.
	Graceful bool
	// Leftovers is how many processes that had left its group were
	// killed (found by their tag).
	Leftovers int
	// Reaped: the command was waited for (false only if it outlived
	// SIGKILL by reapWait, which the kernel should never allow).
	Reaped bool
}

// Start starts cmd in its own process group, tagged. A Stdout or Stderr
// that is not an *os.File is fed through a pipe idemspec reads itself, so
// a descendant that keeps the pipe open cannot hold up the wait.
func Start(cmd *exec.Cmd) (*Proc, error) {
	p := &Proc{cmd: cmd, tag: newTag(), done: make(chan struct{})}
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, TagVar+"="+p.tag)
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	ownGroup(cmd.SysProcAttr)
	var writeEnds []*os.File
	stdout, stderr := cmd.Stdout, cmd.Stderr
	for _, w := range []*io.Writer{&cmd.Stdout, &cmd.Stderr} {
		if _, isFile := (*w).(*os.File); *w == nil || isFile {
			continue
		}
		if w == &cmd.Stderr && stderr == stdout {
			cmd.Stderr = cmd.Stdout // one pipe for combined output
			continue
		}
		r, wr, err := os.Pipe()
		if err != nil {
			p.closePipes(writeEnds)
			p.closePipes(p.pipes)
			return nil, err
		}
		dst := *w
		p.pipes = append(p.pipes, r)
		writeEnds = append(writeEnds, wr)
		p.drain.Add(1)
		go func() {
			defer p.drain.Done()
			io.Copy(dst, r)
		}()
		*w = wr
	}
	err := cmd.Start()
	p.closePipes(writeEnds) // the child holds its own copies
	if err != nil {
		p.closePipes(p.pipes)
		p.drain.Wait()
		return nil, err
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

func (p *Proc) closePipes(fs []*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// Pid is the command's process id (also its process group id).
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Done is closed once the command exited.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Err is how the command exited; valid once Done is closed.
func (p *Proc) Err() error { return p.err }

// ProcessState is the exited command's state; valid once Done is closed.
func (p *Proc) ProcessState() *os.ProcessState { return p.cmd.ProcessState }

// Stop ends the command and everything it started: SIGTERM to its group
// and its tagged descendants, a wait of up to grace for the command to
// exit, then SIGKILL to all of them in every case (for whatever the
// command left behind), then the wait for the command and its output.
// A grace of 0 kills at once.
func (p *Proc) Stop(grace time.Duration) Stopped {
	var s Stopped
	if grace > 0 {
		p.signal(syscall.SIGTERM)
		select {
		case <-p.done:
			s.Graceful = true
		case <-time.After(grace):
		}
	}
	s.Leftovers = p.killAll()
	select {
	case <-p.done:
		s.Reaped = true
	case <-time.After(reapWait):
	}
	p.finishOutput()
	return s
}

// Kill sends SIGKILL to the command's group and tagged descendants now,
// without waiting (a crash: Stop or Wait reaps it later).
func (p *Proc) Kill() { p.signal(syscall.SIGKILL) }

// Wait waits for the command to exit, then kills whatever it left behind
// (its group and tagged descendants) and waits for its output.
func (p *Proc) Wait() error {
	<-p.done
	p.killAll()
	p.finishOutput()
	return p.err
}

// WaitKeep waits for the command to exit and leaves what it started
// running: for a hook whose job is to start something (a restart hook
// that starts the target again). Its output is read until it ends or for
// drainWait, whichever is first.
func (p *Proc) WaitKeep() error {
	<-p.done
	p.finishOutput()
	return p.err
}

// signal sends sig to the group and to every tagged process.
func (p *Proc) signal(sig syscall.Signal) int {
	signalGroup(p.Pid(), sig)
	n := 0
	for _, pid := range Tagged(p.tag) {
		if signalProcess(pid, sig) == nil {
			n++
		}
	}
	return n
}

// killAll sends SIGKILL until no process of the group or tag is left,
// and returns how many tagged processes outside the group it killed. A
// process may fork between a scan and the kill, so it scans again; the
// number of rounds is bounded.
func (p *Proc) killAll() int {
	killed := map[int]bool{}
	pgid := p.Pid()
	for range 50 {
		signalGroup(pgid, syscall.SIGKILL)
		left := Tagged(p.tag)
		if len(left) == 0 {
			break
		}
		for _, pid := range left {
			if pgidOf(pid) != pgid {
				killed[pid] = true
			}
			signalProcess(pid, syscall.SIGKILL)
		}
		time.Sleep(2 * time.Millisecond)
	}
	return len(killed)
}

// finishOutput waits for the output pipes to reach their end, at most
// drainWait, then closes them.
func (p *Proc) finishOutput() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	p.stopped = true
	drained := make(chan struct{})
	go func() {
		p.drain.Wait()
		close(drained)
	}()
	select {
	case <-drained:
	case <-time.After(drainWait):
		p.closePipes(p.pipes)
		<-drained
	}
	p.closePipes(p.pipes)
}

// ErrTimeout is Run's error when the command outlived its bound.
var ErrTimeout = errors.New("timed out")

// Run runs cmd until it exits or ctx ends; then it stops the command
// (SIGTERM, grace, SIGKILL) and returns an error wrapping ErrTimeout. In
// both cases nothing the command started is left running.
func Run(ctx context.Context, cmd *exec.Cmd, grace time.Duration) error {
	return run(ctx, cmd, grace, false)
}

// RunKeep is Run for a command whose job is to start something: after a
// normal exit what it started is left running; after a timeout it is
// stopped like the command.
func RunKeep(ctx context.Context, cmd *exec.Cmd, grace time.Duration) error {
	return run(ctx, cmd, grace, true)
}

func run(ctx context.Context, cmd *exec.Cmd, grace time.Duration, keep bool) error {
	p, err := Start(cmd)
	if err != nil {
		return err
	}
	select {
	case <-p.done:
		if keep {
			return p.WaitKeep()
		}
		return p.Wait()
	case <-ctx.Done():
		p.Stop(grace)
		return fmt.Errorf("%w (%v)", ErrTimeout, context.Cause(ctx))
	}
}

// Tagged lists the live processes whose environment carries tag.
func Tagged(tag string) []int {
	want := []byte("\x00" + TagVar + "=" + tag + "\x00")
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	self := os.Getpid()
	var out []int
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile(d + "/environ")
		if err != nil || len(env) == 0 {
			continue // gone, a zombie, or not ours to read
		}
		env = append(append([]byte{0}, env...), 0)
		if bytes.Contains(env, want) {
			out = append(out, pid)
		}
	}
	return out
}

func newTag() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// Buffer keeps the first Limit bytes written to it and drops the rest,
// so a chatty command cannot fill memory; it never fails a write.
type Buffer struct {
	Limit int

	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := b.Limit - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// String is what was kept.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
