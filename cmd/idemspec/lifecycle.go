package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/wire"
	"github.com/idemspec/idemspec/internal/console"
	"github.com/idemspec/idemspec/reports"
	"github.com/idemspec/idemspec/scenarios"
	"github.com/idemspec/idemspec/targets"
)

// lifecycle is one run of a command that runs checks (run, client in
// each of its ways in, mcp), from the command's first instant to its last
// report. Every mode gets one from begin before it loads, starts, builds
// or connects anything, and hands it on to runSuite, so that the duties
// every run has are written here once and no way in can skip them:
//
//   - SIGINT and SIGTERM never kill idemspec: the first ends ctx (a
//     start, a connect or a baseline under way returns at once, and the
//     suite, listening too, skips the rest), the second ends cleanupCtx;
//     the mode's deferred stops then end every process it started, and
//     the reports say the run was interrupted (exit 2);
//   - --timeout bounds the whole command, start-up included: ctx ends
//     when it runs out, and the suite gets what is left of it;
//   - one redactor holds every secret the run meets: the ${VAR}s of the
//     target or mcp: file and of --cmd, and the credentials the program
//     under test sends on the wire (learnWire);
//   - a run that ends before its first check still writes its reports
//     (notRun), each selected check ERROR saying why.
type lifecycle struct {
	sig     *interrupts
	started time.Time
	timeout time.Duration
	// ctx ends on the first signal (cause errSignal) or when --timeout
	// runs out (cause errTimeLimit); cleanupCtx on a second signal.
	ctx        context.Context
	cleanupCtx context.Context
	cancel     context.CancelFunc

	mu       sync.Mutex
	redactor *targets.Target
	// wireHeaders name the headers whose values the program's requests
	// carry as credentials (beside Authorization and Cookie): those the
	// target file sends its own credentials in.
	wireHeaders []string
	// settle, run before the reports are written, catches up on what the
	// run learnt late (the wire's credentials).
	settle []func()
	// silent are the program's runs that ended on their own before any
	// request reached idemspec (the subject's count did not move).
	silent []*harness.ClientProcess
	runs   int
}

// errTimeLimit is ctx's cause when --timeout ran out.
type errTimeLimit struct{ limit time.Duration }

func (e errTimeLimit) Error() string {
	return fmt.Sprintf("the run's time limit (--timeout %s) ran out", e.limit)
}

// begin starts a run's lifecycle: call it first, and end it (deferred)
// after the last report. timeout bounds the whole command (0: none).
func begin(timeout time.Duration) *lifecycle {
	sig := watchInterrupts()
	l := &lifecycle{sig: sig, started: time.Now(), timeout: timeout, cleanupCtx: sig.second, redactor: &targets.Target{}}
	l.ctx, l.cancel = sig.first, func() {}
	if timeout > 0 {
		l.ctx, l.cancel = context.WithTimeoutCause(sig.first, timeout, errTimeLimit{timeout})
	}
	return l
}

// end stops listening for signals; the mode's own deferred stops (its
// target, its relay, its processes) have run or run next.
func (l *lifecycle) end() {
	l.cancel()
	l.sig.stop()
}

// remaining is what is left of --timeout for the suite (0: no bound).
func (l *lifecycle) remaining() time.Duration {
	if l.timeout <= 0 {
		return 0
	}
	return max(l.timeout-time.Since(l.started), time.Millisecond)
}

// interrupted says why ctx ended ("": it has not).
func (l *lifecycle) interrupted() string {
	if l.ctx.Err() == nil {
		return ""
	}
	return context.Cause(l.ctx).Error()
}

// cut is err as the reports tell it: when a signal or the time limit
// ended the step under way, that is the cause, and the step's own error
// (a context cancelled) is only its echo.
func (l *lifecycle) cut(err error, doing string) error {
	if why := l.interrupted(); why != "" {
		return fmt.Errorf("%s while %s: nothing was judged", why, doing)
	}
	return err
}

// adopt makes t the run's redactor, holding every secret learnt so far:
// the reports, the logs and the terminal redact through t from now on.
func (l *lifecycle) adopt(t *targets.Target) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if t == l.redactor {
		return
	}
	for _, s := range l.redactor.Secrets {
		t.AddSecret(s)
	}
	l.redactor = t
	for _, o := range t.Each() {
		for name := range o.Headers {
			if targets.SecretHeader(name) && !(o.Key.InHeader() && strings.EqualFold(name, o.Key.Name)) {
				l.wireHeaders = append(l.wireHeaders, name)
			}
		}
		for _, tn := range o.Tenants {
			for name := range tn.Headers {
				if targets.SecretHeader(name) {
					l.wireHeaders = append(l.wireHeaders, name)
				}
			}
		}
	}
}

// addSecrets makes each value a secret of the run.
func (l *lifecycle) addSecrets(values ...string) {
	l.mu.Lock()
	t := l.redactor
	l.mu.Unlock()
	for _, s := range values {
		t.AddSecret(s)
	}
}

// redact replaces every secret of the run in s.
func (l *lifecycle) redact(s string) string {
	l.mu.Lock()
	t := l.redactor
	l.mu.Unlock()
	return t.Redact(s)
}

// commandSecrets makes the values of a command's ${NAME}s secrets: a
// token the program prints is redacted everywhere.
func (l *lifecycle) commandSecrets(command string) error {
	secrets, err := targets.CommandSecrets(command)
	if err != nil {
		return err
	}
	l.addSecrets(secrets.Secrets...)
	return nil
}

// fail prints err, redacted, and returns exit 2.
func (l *lifecycle) fail(stderr io.Writer, err error) int {
	var fe *targets.FileError
	if errors.As(err, &fe) {
		return fail(stderr, err)
	}
	return fail(stderr, errors.New(l.redact(err.Error())))
}

// notRun ends a run that stopped before its first check: the cause on
// stderr and, when m names the target, the four reports in dir, one
// ERROR per selected check (client: of client mode) saying why; exit 2.
func (l *lifecycle) notRun(m reports.Meta, client bool, dir string, cause error, stdout, stderr io.Writer) int {
	code := l.fail(stderr, cause)
	cause = errors.New(l.redact(cause.Error()))
	if m.Target.Name == "" {
		return code
	}
	if m.RunID == "" {
		m.RunID = harness.NewRunID()
	}
	m.Redact = l.redact
	if m.Version == "" {
		m.Version = buildVersion()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(stderr, "idemspec: report directory: %v\n", err)
		return code
	}
	paths, err := reports.WriteAll(dir, scenarios.NotRun(m, client, l.started, cause))
	if err != nil {
		fmt.Fprintf(stderr, "idemspec: %v\n", err)
		return code
	}
	fmt.Fprintf(stdout, "no check ran; reports: %s\n", strings.Join(paths, ", "))
	return code
}

// beforeReports catches up on what the run learnt late; runSuite calls
// it before it writes the reports.
func (l *lifecycle) beforeReports() {
	l.mu.Lock()
	settle := l.settle
	l.mu.Unlock()
	for _, f := range settle {
		f()
	}
}

// learnWire makes the credentials the program sends through the
// interposer secrets of the run: synchronously for every request the
// interposer forwards (through the client returned, to hand it as its
// Upstream), before the API sees it, so that a managed API that logs
// them has them redacted from target.log too; and, for the requests
// idemspec answered itself, from the interposer's record as they
// arrive and once more before the reports.
func (l *lifecycle) learnWire(upstream *http.Client) *http.Client {
	c := *upstream
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c.Transport = roundTripper(func(r *http.Request) (*http.Response, error) {
		l.learnHeader(r.Header)
		return next.RoundTrip(r)
	})
	return &c
}

// followWire learns the credentials of every request in rec, as they
// arrive, until the run ends, and of all of them before the reports.
func (l *lifecycle) followWire(rec *wire.Record) {
	sweep := func() {
		for _, x := range rec.Exchanges() {
			l.learnHeader(x.Header)
		}
	}
	l.mu.Lock()
	l.settle = append(l.settle, sweep)
	l.mu.Unlock()
	go func() {
		for from := 0; ; {
			x, err := rec.Await(l.sig.first, from, func(wire.Exchange) bool { return true })
			if err != nil {
				return
			}
			l.learnHeader(x.Header)
			from = x.Seq // Seq counts from 1: the next exchange's index
		}
	}()
}

// learnHeader makes the credentials in h secrets of the run.
func (l *lifecycle) learnHeader(h http.Header) {
	l.mu.Lock()
	names := l.wireHeaders
	l.mu.Unlock()
	l.addSecrets(credentials(h, names)...)
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// watchPrograms follows every run of the program under test: one that
// ends on its own before any request reached idemspec (sent, the count
// of requests the subject has seen, did not move) is shown on the
// terminal when the run ends with an ERROR (showSilent): its exit status
// and the end of its stderr, the why of "no request came".
func (l *lifecycle) watchPrograms(c *harness.Clients, sent func() int) {
	c.Watch = func() func(*harness.ClientProcess) {
		before := sent()
		return func(p *harness.ClientProcess) {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.runs++
			if _, killed := p.Ended(); killed == "" && sent() == before {
				l.silent = append(l.silent, p)
			}
		}
	}
}

// silentTail bounds the stderr shown of a program that sent nothing.
const (
	silentLines = 8
	silentBytes = 1500
)

// showSilent says, after the checks, that the program ended before any
// request, how it exited and how its stderr ended (the last such run):
// the checks' reasons say no request came, this says why.
func (l *lifecycle) showSilent(w io.Writer) {
	l.mu.Lock()
	silent, runs := l.silent, l.runs
	l.mu.Unlock()
	if len(silent) == 0 {
		return
	}
	p := silent[len(silent)-1]
	code, _ := p.Ended()
	_, stderr := p.Output(silentBytes)
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	if len(lines) > silentLines {
		lines = append([]string{"…"}, lines[len(lines)-silentLines:]...)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nthe program ended before sending any request in %d of its %d runs; the last exited with status %d", len(silent), runs, code)
	if strings.TrimSpace(stderr) == "" {
		b.WriteString(" and wrote nothing on stderr\n")
	} else {
		b.WriteString(", its stderr ending:\n")
		for _, line := range lines {
			fmt.Fprintf(&b, "  %s\n", console.Line(line))
		}
	}
	io.WriteString(w, l.redact(b.String()))
}
