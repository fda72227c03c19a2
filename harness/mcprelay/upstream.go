package mcprelay

import (
	"context"
	"errors"
	"net/http"
	"sync"

	"github.com/idemspec/idemspec/targets/mcp"
)

// Dial opens the one session with the server f describes: its command,
// started in its own process group (a restart starts it again, so a
// server that keeps its state in a file finds it there), or its URL.
func Dial(ctx context.Context, f mcp.File) (Upstream, error) {
	if f.MCP.URL == "" {
		s := &mcp.Stdio{Command: f.MCP.Command, Env: f.MCP.EnvList(), Dir: f.MCP.Dir}
		if _, err := s.Start(ctx); err != nil {
			return nil, err
		}
		return s, nil
	}
	if f.Process != nil {
		return nil, errors.New("client mode reaches an MCP server at mcp: url: that is already running; process: is not started for it")
	}
	h := &httpServer{url: f.MCP.URL, client: &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	if err := h.Restart(ctx); err != nil {
		return nil, err
	}
	return h, nil
}

// httpServer is a server at a URL: idemspec cannot restart it, so a
// restart ends the session and begins another, which is what an agent
// sees of a restart.
type httpServer struct {
	url    string
	client *http.Client

	mu      sync.Mutex
	session *mcp.Session
}

func (h *httpServer) Session() *mcp.Session {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.session
}

func (h *httpServer) Restart(ctx context.Context) error {
	h.Close()
	s, err := mcp.ConnectHTTP(ctx, h.url, h.client)
	if err != nil {
		return err
	}
	h.mu.Lock()
	h.session = s
	h.mu.Unlock()
	return nil
}

func (h *httpServer) Close() error {
	h.mu.Lock()
	s := h.session
	h.session = nil
	h.mu.Unlock()
	if s != nil {
		return s.Close()
	}
	return nil
}
