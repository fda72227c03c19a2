package targets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/idemspec/idemspec/internal/outfile"
	"github.com/idemspec/idemspec/internal/proc"
)

// Process is a target process idemspec starts before the suite, restarts
// (SIGTERM, wait, start) or crashes (SIGKILL, start) when a check asks,
// and stops at the end: the process: section of a target file.
//
// It runs in its own process group and every signal goes to the whole
// group and to every descendant that left it (found by the tag in its
// environment, see internal/proc), so whatever it started dies with it;
// Stop always ends with a SIGKILL to all of them, so nothing it started
// outlives the run.
type Process struct {
	target *Target

	// Command, Args, Env and Dir are templates over ProcessVars.
	Command string
	Args    []string
	Env     map[string]string
	Dir     string

	Health Health
	// StopTimeout is how long a graceful stop waits after SIGTERM before
	// it sends SIGKILL.
	StopTimeout time.Duration
	// Port is the free loopback port picked for {{.Port}}.
	Port int
	// CrashAt is the line the process writes when a request is inside
	// its work, {{.Key}} standing for the request's key (process.crash_at;
	// "": a crash lands at a delay drawn from the crash window).
	CrashAt string

	mu     sync.Mutex
	dir    string        // the report directory (set by Start)
	log    *os.File      // dir/target.log, shared by every generation
	out    *RedactWriter // log, with the target's secrets redacted
	run    *proc.Proc    // nil when no process runs
	starts int
	watch  *crashWatch // nil without CrashAt
}

// ProcessVars are what the process fields (and base_url, for Port) may
// use as {{.Port}}, {{.Idemspec}} and {{.ReportDir}}.
type ProcessVars struct {
	Port      int    // a free loopback port idemspec picked for this run
	Idemspec  string // the path of the running idemspec binary
	ReportDir string // the run's report directory (absolute)
}

// DefaultStopTimeout is how long a graceful stop waits before SIGKILL.
const DefaultStopTimeout = 10 * time.Second

// LogName is the file in the report directory that gets the managed
// process's output and idemspec's notes about it (started, stopped).
const LogName = "target.log"

// Start starts the process and waits until it is healthy.
func (p *Process) Start(ctx context.Context, dir string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.run != nil {
		return errors.New("process: already running")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("process: %w", err)
	}
	p.dir = abs
	if p.log == nil {
		if p.log, err = outfile.Create(filepath.Join(abs, LogName)); err != nil {
			return fmt.Errorf("process: log file: %w", err)
		}
		// The process may log what it was given (${ENV} in its args and
		// environment) or what it was sent (credential headers).
		p.out = p.target.RedactWriter(p.log)
	}
	return p.start(ctx)
}

// Restart stops the process gracefully and starts it again.
func (p *Process) Restart(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stop(true)
	return p.start(ctx)
}

// Crash kills the process group with SIGKILL and starts it again.
func (p *Process) Crash(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stop(false)
	return p.start(ctx)
}

// Stop stops the process gracefully (SIGKILL after StopTimeout).
func (p *Process) Stop() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stop(true)
	if p.log != nil {
		p.out.Flush()
		err := p.log.Close()
		p.log, p.out = nil, nil
		return err
	}
	return nil
}

// CrashPoint is closed when the process writes its CrashAt line for
// key; nil without CrashAt.
func (p *Process) CrashPoint(key string) <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.watch == nil {
		return nil
	}
	return p.watch.arm(key)
}

// CrashLine is the line the process writes when the request for key is
// inside its work (CrashAt with the key); "" without CrashAt.
func (p *Process) CrashLine(key string) string {
	if p.CrashAt == "" {
		return ""
	}
	return crashLine(p.CrashAt, key)
}

// Pid is the running process's id, or 0.
func (p *Process) Pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.run == nil {
		return 0
	}
	return p.run.Pid()
}

// LogPath is where the process's output goes (known after Start).
func (p *Process) LogPath() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return filepath.Join(p.dir, LogName)
}

func (p *Process) start(ctx context.Context) error {
	cmd, err := p.command()
	if err != nil {
		return err
	}
	var out io.Writer = p.out
	if p.CrashAt != "" {
		if p.watch == nil {
			p.watch = newCrashWatch(p.CrashAt)
		}
		out = io.MultiWriter(p.out, p.watch)
	}
	cmd.Stdout, cmd.Stderr = out, out
	// Its own group: a signal to -pid reaches everything it starts, and
	// a Ctrl-C at the terminal reaches idemspec alone, which stops it.
	r, err := proc.Start(cmd)
	if err != nil {
		return fmt.Errorf("process: start %s: %w", p.target.Redact(cmd.Path), err)
	}
	p.run = r
	p.starts++
	p.note("started pid %d (start %d)", r.Pid(), p.starts)
	began := time.Now()
	if err := p.Health.await(ctx, p.target, r.Done()); err != nil {
		pid := r.Pid()
		p.stop(false) // a process that never came up is not left behind
		return fmt.Errorf("process (pid %d) not healthy (%s): %w; its output is in %s",
			pid, p.Health, err, filepath.Join(p.dir, LogName))
	}
	// A slow run's time is often its target's starts: the log says each.
	p.note("pid %d healthy after %s", r.Pid(), time.Since(began).Round(time.Millisecond))
	return nil
}

// stop ends the running process: SIGTERM to the group and its
// descendants and a wait of StopTimeout when graceful, then SIGKILL to
// all of them in every case (for whatever the leader left behind), then
// the leader is reaped.
func (p *Process) stop(graceful bool) {
	r := p.run
	if r == nil {
		return
	}
	p.run = nil
	if p.watch != nil {
		defer p.watch.reset()
	}
	grace := time.Duration(0)
	if graceful {
		grace = p.StopTimeout
	}
	s := r.Stop(grace)
	pid := r.Pid()
	if graceful && !s.Graceful {
		p.note("pid %d did not stop within %s of SIGTERM: SIGKILL", pid, p.StopTimeout)
	}
	if s.Leftovers > 0 {
		p.note("pid %d had left %d processes outside its group: SIGKILL", pid, s.Leftovers)
	}
	if !s.Reaped {
		p.note("pid %d not reaped 10s after SIGKILL", pid)
		return
	}
	how := "SIGTERM"
	if !graceful || !s.Graceful {
		how = "SIGKILL"
	}
	p.note("pid %d stopped (%s): %v", pid, how, exitText(r.Err()))
}

func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// note writes one line of idemspec's own into the target log.
func (p *Process) note(format string, args ...any) {
	if p.out != nil {
		fmt.Fprintf(p.out, "idemspec %s: "+format+"\n", append([]any{time.Now().UTC().Format(time.RFC3339Nano)}, args...)...)
	}
}

// command renders the templates into the command to run.
func (p *Process) command() (*exec.Cmd, error) {
	vars, err := p.vars()
	if err != nil {
		return nil, err
	}
	render := func(field, text string) (string, error) {
		out, err := renderVars(text, vars)
		if err != nil {
			return "", fmt.Errorf("process.%s: %w", field, err)
		}
		return out, nil
	}
	name, err := render("command", p.Command)
	if err != nil {
		return nil, err
	}
	args := make([]string, len(p.Args))
	for i, a := range p.Args {
		if args[i], err = render(fmt.Sprintf("args[%d]", i), a); err != nil {
			return nil, err
		}
	}
	cmd := exec.Command(name, args...)
	if cmd.Dir, err = render("dir", p.Dir); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(p.Env))
	for k := range p.Env {
		names = append(names, k)
	}
	sort.Strings(names)
	cmd.Env = os.Environ()
	for _, k := range names {
		v, err := render("env."+k, p.Env[k])
		if err != nil {
			return nil, err
		}
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	return cmd, nil
}

func (p *Process) vars() (ProcessVars, error) {
	self, err := os.Executable()
	if err != nil {
		return ProcessVars{}, fmt.Errorf("process: the idemspec binary: %w", err)
	}
	return ProcessVars{Port: p.Port, Idemspec: self, ReportDir: p.dir}, nil
}

// renderVars renders a process field; text with no {{ is left alone.
func renderVars(text string, vars ProcessVars) (string, error) {
	if !strings.Contains(text, "{{") {
		return text, nil
	}
	t, err := parseTemplate("field", text, asWritten)
	if err != nil {
		return "", err
	}
	return render(t, vars)
}
