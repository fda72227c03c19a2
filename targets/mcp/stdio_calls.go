package mcp

import (
	"context"
	"errors"
	"time"
)

// CrashAfter is how long CrashDuring lets a call run before it kills the
// server: long enough for the call to reach the tool, short enough to
// land before most tools answer.
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

// CrashDuring starts a call, kills the server CrashAfter later (SIGKILL
// to its group), and starts it again. The call's outcome is unknown.
func (s *Stdio) CrashDuring(ctx context.Context, tool string, args map[string]any) error {
	session := s.Session() // this server's session, not its successor's
	if session == nil {
		return errStopped
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		session.Call(ctx, tool, args)
	}()
	select {
	case <-done:
	case <-time.After(CrashAfter):
	}
	err := s.Crash(ctx)
	<-done // the kill closed the pipes: the call has returned or does now
	return err
}

// CannotRestart is "": the harness manages the process, so it can
// always restart it (whether the state survives is the server's
// business, and what M3 judges).
func (s *Stdio) CannotRestart() string { return "" }
