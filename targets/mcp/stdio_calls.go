package mcp

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"
)

// CrashAfter is how long CrashDuring lets a call run, once its request
// is written to the server, before it kills the server: short enough to
// land before most tools answer. Where it lands changes no verdict (the
// call may or may not have applied; the retry must leave one effect
// either way), and the report says where it landed.
const CrashAfter = 5 * time.Millisecond

var errStopped = errors.New("the MCP server is not running")

// Call calls a tool on the running server.
func (s *Stdio) Call(ctx context.Context, tool string, args map[string]any) (Answer, error) {
	session := s.Session()
	if session == nil {
		return Answer{}, errStopped
	}
	return session.Call(ctx, tool, args)
}

// CallLost is Call whose answer the caller discards: on stdio nothing can
// cut an answer on the way, so the harness does what a timed-out agent
// does, and calls again without having used it.
func (s *Stdio) CallLost(ctx context.Context, tool string, args map[string]any) (Answer, error) {
	return s.Call(ctx, tool, args)
}

// CrashDuring starts a call, kills the server (SIGKILL to its group)
// once the call was written to its input: CrashAfter later, or, aimed
// (after > 0), once after has passed since the call was sent,
// and starts it again. The call's outcome is unknown; the description says where the
// crash landed. A call answered before that moment is crashed after its
// answer, and the error is a *CrashMissed.
func (s *Stdio) CrashDuring(ctx context.Context, tool string, args map[string]any, after time.Duration) (string, error) {
	s.mu.Lock()
	session, in := s.session, s.in // this server's, not its successor's
	s.mu.Unlock()
	if session == nil {
		return "", errStopped
	}
	least := CrashAfter
	if after > 0 {
		least = 0 // the caller aims, from when the call is sent
	}
	written, sent := in.arm(), time.Now()
	done := make(chan struct{})
	var took time.Duration // read once done is closed
	go func() {
		defer close(done)
		session.Call(ctx, tool, args)
		took = time.Since(sent)
	}()
	where, err := AwaitCrashPoint(ctx, written, done, least, sent.Add(after))
	var missed *CrashMissed
	if err != nil && !errors.As(err, &missed) {
		return "", err
	}
	// A call answered first is crashed all the same, so that the server
	// is a restarted one either way; the crash is no evidence, and the
	// error says so.
	if err := s.Crash(ctx); err != nil {
		<-done
		return where, err
	}
	<-done // the kill closed the pipes: the call has returned or does now
	if missed != nil {
		missed.Took = took
		return "", missed
	}
	return where, nil
}

// signalWriter is the server's input: it says when the next write,
// armed for, has gone through.
type signalWriter struct {
	w     io.WriteCloser
	mu    sync.Mutex
	armed chan struct{}
}

// arm returns a channel closed once the next write is done.
func (sw *signalWriter) arm() <-chan struct{} {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	sw.armed = make(chan struct{})
	return sw.armed
}

func (sw *signalWriter) Write(p []byte) (int, error) {
	n, err := sw.w.Write(p)
	sw.mu.Lock()
	if sw.armed != nil && err == nil {
		close(sw.armed)
		sw.armed = nil
	}
	sw.mu.Unlock()
	return n, err
}

func (sw *signalWriter) Close() error { return sw.w.Close() }

// CannotRestart is "": the harness manages the process, so it can
// always restart it (whether the state survives is the server's
// business, and what M3 judges).
func (s *Stdio) CannotRestart() string { return "" }
