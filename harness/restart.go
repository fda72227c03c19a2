package harness

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/targets"
)

// Restart modes, as recorded in history.Restart.
const (
	Graceful = "graceful"
	Crash    = "crash"
)

// Restart restarts the target gracefully (SIGTERM, wait, start, or its
// restart hook) and returns once it is healthy again.
func (e *Env) Restart(ctx context.Context) (history.Restart, error) {
	r, ok := e.Target.Lifecycle.(targets.Restarter)
	if !ok {
		return history.Restart{Mode: Graceful}, errors.New(e.Target.CannotRestart())
	}
	return e.cycle(ctx, history.Restart{Mode: Graceful}, r.Restart)
}

// Crash kills the target at once (SIGKILL) and starts it again.
func (e *Env) Crash(ctx context.Context, point string, inFlight ...int) (history.Restart, error) {
	c, ok := e.Target.Lifecycle.(targets.Crasher)
	if !ok {
		return history.Restart{Mode: Crash}, errors.New(e.Target.CannotCrash())
	}
	return e.cycle(ctx, history.Restart{Mode: Crash, Point: point, Seqs: inFlight}, c.Crash)
}

// OnFirstByte is the Point of a restart that RestartOnAnswer began on
// the first byte of the answer: the request was answered, and whether
// the rest of the answer arrived is the target's stop to decide (one
// that does not drain cuts it).
const OnFirstByte = "on the first byte of the answer"

// RestartOnAnswer sends a and restarts the target gracefully the instant
// the answer's first byte arrives, while the rest is still being read:
// nothing of the harness runs between the two, so a target that sends
// its answer first and stores the key's record a few hundred
// microseconds later is stopped inside that window. With no answer, the
// restart follows the attempt. It returns the attempt's exchange, the
// restart (its Point OnFirstByte when the answer began), and how long
// after the answer's first byte the restart began.
func (e *Env) RestartOnAnswer(ctx context.Context, h *history.History, a Attempt) (history.Exchange, history.Restart, time.Duration, error) {
	r, ok := e.Target.Lifecycle.(targets.Restarter)
	if !ok {
		return history.Exchange{}, history.Restart{Mode: Graceful}, 0, errors.New(e.Target.CannotRestart())
	}
	type restarted struct {
		rec history.Restart
		err error
	}
	done := make(chan restarted, 1)
	var answered time.Time
	// The answer's reading waits for the restart, which may take a hook
	// and a health check (each capped at targets.MaxWait): the attempt's
	// bound covers them, while an answer that never begins is given up
	// on after the usual request timeout.
	timeout := a.Timeout
	if timeout == 0 {
		timeout = e.Settings.RequestTimeout
	}
	a.Timeout = timeout + 3*targets.MaxWait
	began, sent, cancel := make(chan struct{}), make(chan struct{}), make(chan struct{})
	a.Cancel = cancel
	go func() {
		select {
		case <-began:
		case <-sent:
		case <-time.After(timeout):
			close(cancel)
		}
	}()
	// The stop runs on the transport's goroutine, holding the answer's
	// reading until it returns: a goroutine of its own could wait
	// hundreds of microseconds for a processor on a busy machine. The
	// answer's bytes are already on their way; the reading resumes after.
	begin := sync.OnceFunc(func() {
		rec, err := e.cycle(ctx, history.Restart{Mode: Graceful}, r.Restart)
		done <- restarted{rec, err}
	})
	a.Answered = sync.OnceFunc(func() {
		answered = time.Now()
		close(began)
		begin()
	})
	x := e.Send(ctx, h, a)
	close(sent)
	begin() // no answer came: the restart follows the attempt
	res := <-done
	// The answer's connection went back to the pool after the restart
	// may have closed the idle ones: it leads nowhere now.
	e.closeIdle()
	var gap time.Duration
	if !answered.IsZero() {
		gap = res.rec.At.Sub(answered)
		res.rec.Point, res.rec.Seqs = OnFirstByte, []int{x.Seq}
	}
	return x, res.rec, gap, res.err
}

func (e *Env) cycle(ctx context.Context, rec history.Restart, do func(context.Context) error) (history.Restart, error) {
	// A connection the harness dialed and never sent a request on (the
	// transport dials when no connection is free, and keeps the dial
	// when one frees up first) holds a graceful stop: Go's Shutdown, for
	// one, waits up to 5 s for a connection's first request. Requests in
	// flight are not idle, and keep theirs.
	e.closeIdle()
	rec.At = time.Now()
	err := do(ctx)
	rec.Down = time.Since(rec.At)
	e.closeIdle()
	if err != nil {
		return rec, fmt.Errorf("%s restart: %w", rec.Mode, err)
	}
	return rec, nil
}

// closeIdle drops the connections kept alive across a restart: they
// lead nowhere now, and a POST sent on one would fail without being sent
// again.
func (e *Env) closeIdle() {
	for _, l := range slices.Concat(e.cleans, e.faults) {
		l.client.CloseIdleConnections()
	}
	e.Target.Direct.CloseIdleConnections()
}

// CrashMidRequest sends a and crashes the target while the request is
// being processed, then starts it again. On a target with crash points
// (the built-in fakes, a managed process with process.crash_at) the
// crash lands inside the handler's work, where the target says; on others
// it lands at a delay drawn from the target's crash window after the
// request was delivered. It returns the crashed
// request's exchange (normally maybe-applied) and the restart, whose
// Point says where the crash landed. When the request was answered
// before that moment came, the target is crashed all the same and the
// error is a *CrashMissed: the crash shows nothing of a crash
// mid-request.
func (e *Env) CrashMidRequest(ctx context.Context, h *history.History, a Attempt, rng *rand.Rand) (history.Exchange, history.Restart, error) {
	if why := e.Target.CannotCrash(); why != "" {
		return history.Exchange{}, history.Restart{Mode: Crash}, errors.New(why)
	}
	timeout := a.Timeout
	if timeout == 0 {
		timeout = e.Settings.RequestTimeout
	}
	point, awaited := e.crashPoint(a.Key)
	var offset time.Duration
	if point == nil {
		w := e.Target.CrashWindow
		offset = w.Min
		if w.Max > w.Min {
			offset += time.Duration(rng.Int64N(int64(w.Max - w.Min + 1)))
		}
		awaited = fmt.Sprintf("%s after the request was delivered (drawn from the crash window %s)", offset.Round(time.Microsecond), w)
	}
	wrote := make(chan struct{})
	a.Wrote = sync.OnceFunc(func() { close(wrote) })
	done := make(chan history.Exchange, 1)
	go func() { done <- e.Send(ctx, h, a) }()

	where, answered, err := e.awaitCrashPoint(ctx, point, wrote, done, timeout, offset, awaited)
	if err != nil {
		x := <-done
		return x, history.Restart{Mode: Crash}, err
	}
	rec, err := e.Crash(ctx, where)
	if answered == nil {
		x := <-done
		rec.Seqs = []int{x.Seq}
		return x, rec, err
	}
	if err == nil {
		err = &CrashMissed{Awaited: awaited, Drawn: point == nil, Outcome: answered.Outcome, Status: answered.Status}
	}
	return *answered, rec, err
}

// crashPoint arms the target's crash point for key, if it has one, and
// says what it is (for a crash that misses it): nil without one, when
// the crash is drawn from the crash window.
func (e *Env) crashPoint(key string) (<-chan struct{}, string) {
	cp, ok := e.Target.Lifecycle.(targets.CrashPointer)
	if !ok {
		return nil, ""
	}
	point := cp.CrashPoint(key)
	if point == nil {
		return nil, ""
	}
	if l, ok := cp.(targets.CrashLiner); ok {
		return point, fmt.Sprintf("the line process.crash_at names, %q", l.CrashLine(key))
	}
	return point, "the fake's crash point"
}

// CrashMissed is CrashMidRequest's error when the request was answered
// before the crash's moment came: the target was crashed after the
// answer, which is no evidence of what a crash mid-request does.
type CrashMissed struct {
	// Awaited is what the crash waited for: the target's crash point
	// (for a managed process, the line process.crash_at names for the
	// request's key) or the delay drawn from the crash window.
	Awaited string
	// Drawn: the moment was a delay drawn from the crash window, which a
	// busy machine may make late once; a crash point is missed every
	// time the same way.
	Drawn bool
	// Outcome and Status are the answer that came first.
	Outcome history.Outcome
	Status  int
}

func (m *CrashMissed) Error() string {
	if m.Drawn {
		return fmt.Sprintf("the crash did not land mid-request: the request was answered (%s %d) before %s had passed; "+
			"a crash after the answer shows nothing of a crash mid-request (give the target a process.crash_at line, or a crash_window that ends before its work does)",
			m.Outcome, m.Status, m.Awaited)
	}
	return fmt.Sprintf("the crash did not land mid-request: the request was answered (%s %d) before it reached %s; "+
		"a crash after the answer shows nothing of a crash mid-request (check that the process writes that line, at its log level, "+
		"unbuffered, as the request enters its work)", m.Outcome, m.Status, m.Awaited)
}

// awaitCrashPoint waits for the moment to crash, the target's crash
// point or else offset after the request was delivered, and describes
// it (awaited). If the request is answered first, the crash comes after
// it: the answer is returned, and the description says so.
func (e *Env) awaitCrashPoint(ctx context.Context, point, wrote <-chan struct{}, done <-chan history.Exchange, timeout, offset time.Duration, awaited string) (string, *history.Exchange, error) {
	bound := time.NewTimer(timeout)
	defer bound.Stop()
	missed := func(x history.Exchange) (string, *history.Exchange, error) {
		return fmt.Sprintf("after the request was answered (%s %d): the crash came too late to land mid-request", x.Outcome, x.Status), &x, nil
	}
	if point != nil {
		select {
		case <-point:
			return "inside the handler's work, where the target said it was (" + awaited + ")", nil, nil
		case x := <-done:
			return missed(x)
		case <-bound.C:
			return "", nil, fmt.Errorf("the request did not reach the handler's work (%s) within %s", awaited, timeout)
		case <-ctx.Done():
			return "", nil, ctx.Err()
		}
	}
	select {
	case <-wrote:
	case x := <-done:
		return missed(x)
	case <-bound.C:
		return "", nil, fmt.Errorf("the request was not delivered within %s", timeout)
	case <-ctx.Done():
		return "", nil, ctx.Err()
	}
	select {
	case <-time.After(offset):
		return awaited, nil, nil
	case x := <-done:
		return missed(x)
	case <-ctx.Done():
		return "", nil, ctx.Err()
	}
}
