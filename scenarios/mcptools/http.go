package mcptools

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"sync"
	"time"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/targets"
	"github.com/idemspec/idemspec/targets/mcp"
)

// HTTP is a server reached over streamable HTTP through the harness's
// lanes, like any HTTP target: the session's calls take the clean lane;
// a lost call takes the faulty lane in a session of its own, whose
// answer is cut there (harness.AnswerCut) as it leaves the server. A
// restart or a crash goes to the target's process: (or restart: hook),
// and a new session follows it.
type HTTP struct {
	target *targets.Target
	env    *harness.Env
	// timeout bounds every HTTP request, so that no session's close or
	// stray stream can hang the audit.
	timeout time.Duration

	mu      sync.Mutex
	session *mcp.Session
}

// StartHTTP starts the target's process if it has one (its log in dir),
// puts the lanes in front of it and opens a session on the clean lane.
// The caller has applied the loopback rule (Target.CheckRemote).
func StartHTTP(ctx context.Context, t *targets.Target, dir string, s Settings) (*HTTP, error) {
	if err := t.Start(ctx, dir); err != nil {
		t.Close()
		return nil, fmt.Errorf("start the MCP server: %w", err)
	}
	env, err := harness.New(t, harness.Settings{BurstSize: s.burst(), RequestTimeout: s.callTimeout()})
	if err != nil {
		t.Close()
		return nil, err
	}
	h := &HTTP{target: t, env: env, timeout: s.callTimeout()}
	cctx, cancel := context.WithTimeout(ctx, s.startTimeout())
	defer cancel()
	if err := h.reconnect(cctx); err != nil {
		if cctx.Err() != nil && ctx.Err() == nil {
			err = fmt.Errorf("the server did not answer initialize within %s: %w", s.startTimeout(), err)
		}
		h.Close()
		return nil, err
	}
	return h, nil
}

// Session is the session on the clean lane, for tools/list.
func (h *HTTP) Session() *mcp.Session {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.session
}

// Close ends the session, the lanes and the process idemspec started.
func (h *HTTP) Close() error {
	h.mu.Lock()
	if h.session != nil {
		h.session.Close()
		h.session = nil
	}
	h.mu.Unlock()
	h.env.Close()
	return h.target.Close()
}

// over is a lane's client for the SDK: each request sent once (no
// GetBody, so net/http cannot resend it) and bounded in time.
func (h *HTTP) over(l *harness.Lane) *http.Client {
	return &http.Client{Timeout: h.timeout, Transport: sentOnce{l.HTTPClient()}}
}

type sentOnce struct{ c *http.Client }

func (s sentOnce) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.GetBody = nil
	return s.c.Do(req)
}

// reconnect replaces the session on the clean lane (after a restart the
// server knows the old one no more).
func (h *HTTP) reconnect(ctx context.Context) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.session != nil {
		h.session.Close()
		h.session = nil
	}
	s, err := mcp.ConnectHTTP(ctx, h.target.BaseURL.String(), h.over(h.env.Clean))
	if err != nil {
		return fmt.Errorf("%s: %w", h.target.Redact(h.target.BaseURL.Redacted()), err)
	}
	h.session = s
	return nil
}

// Call calls a tool through the clean lane.
func (h *HTTP) Call(ctx context.Context, tool string, args map[string]any) (mcp.Answer, error) {
	s := h.Session()
	if s == nil {
		return mcp.Answer{}, errors.New("no session with the MCP server")
	}
	return s.Call(ctx, tool, args)
}

// CallLost opens a session on the faulty lane while it is clean, then
// cuts the lane's answers and calls: the server runs the call and its
// answer is dropped on the way, which the client learns as soon as the
// answer starts (no wait races the tool's work).
func (h *HTTP) CallLost(ctx context.Context, tool string, args map[string]any) (mcp.Answer, error) {
	s, err := mcp.ConnectHTTP(ctx, h.target.BaseURL.String(), h.over(h.env.Faulty))
	if err != nil {
		return mcp.Answer{}, fmt.Errorf("a session on the faulty lane: %w", err)
	}
	remove, err := h.env.Faulty.Apply(harness.AnswerCut{})
	if err != nil {
		s.Close()
		return mcp.Answer{}, err
	}
	a, err := s.Call(ctx, tool, args)
	remove()
	s.Close()
	if err == nil {
		return a, ErrNotCut
	}
	return a, err
}

// ErrNotCut is CallLost's error when the answer came through the faulty
// lane whole: the fault did not hold, and the call was not lost.
var ErrNotCut = errors.New("the answer came through the faulty lane: it was not cut")

// Restart restarts the server (process: or restart:) and opens a new
// session.
func (h *HTTP) Restart(ctx context.Context) error {
	if _, err := h.env.Restart(ctx); err != nil {
		return err
	}
	return h.reconnect(ctx)
}

// CrashDuring sends a call and, once its request is written, waits the
// target's crash window's least delay (and until after has passed since
// the call was sent) and kills the server (SIGKILL),
// which starts again; then a new session. If the call is answered first,
// the server is crashed after it and the error is a *mcp.CrashMissed.
func (h *HTTP) CrashDuring(ctx context.Context, tool string, args map[string]any, after time.Duration) (string, error) {
	s := h.Session()
	if s == nil {
		return "", errors.New("no session with the MCP server")
	}
	wrote := make(chan struct{})
	once := sync.OnceFunc(func() { close(wrote) })
	callCtx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	callCtx = httptrace.WithClientTrace(callCtx, &httptrace.ClientTrace{
		WroteRequest: func(info httptrace.WroteRequestInfo) {
			if info.Err == nil {
				once()
			}
		},
	})
	done, sent := make(chan struct{}), time.Now()
	var took time.Duration // read once done is closed
	go func() {
		defer close(done)
		s.Call(callCtx, tool, args)
		took = time.Since(sent)
	}()
	where, err := mcp.AwaitCrashPoint(callCtx, wrote, done, h.target.CrashWindow.Min, sent.Add(after))
	var missed *mcp.CrashMissed
	if errors.As(err, &missed) {
		// Crashed all the same, so that the server is a restarted one
		// either way; the crash is no evidence, and the error says so.
		missed.Hint = fmt.Sprintf("process.crash_window starts at %s: a window that starts before the tool's work ends lets the crash land in it", h.target.CrashWindow.Min)
		where = "after the call was answered"
	} else if err != nil {
		cancel()
		<-done
		return "", err
	}
	_, err = h.env.Crash(ctx, where)
	<-done // the kill broke the connection, or the call's deadline ends it
	if err != nil {
		return where, err
	}
	if err := h.reconnect(ctx); err != nil {
		return where, err
	}
	if missed != nil {
		missed.Took = took
		return "", missed
	}
	return where, nil
}

// CannotRestart says why the server cannot be restarted: a target with
// M3 both restarts and crashes it, so it needs a process: section.
func (h *HTTP) CannotRestart() string { return h.target.CannotCrash() }
