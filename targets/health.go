package targets

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// Health is how idemspec knows a target it started or restarted is up:
// a GET of Path answered with a 2xx or, with no Path, a TCP connection
// accepted on the base URL's port.
type Health struct {
	Path    string
	Timeout time.Duration
}

// DefaultHealthTimeout bounds the wait for a target to come up.
const DefaultHealthTimeout = 30 * time.Second

// await polls the health check until it passes, the timeout passes, ctx
// ends, or gone is closed (the process exited: it will never be healthy).
func (h Health) await(ctx context.Context, t *Target, gone <-chan struct{}) error {
	timeout := h.Timeout
	if timeout <= 0 {
		timeout = DefaultHealthTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		if last = h.probe(ctx, t); last == nil {
			return nil
		}
		select {
		case <-gone:
			return fmt.Errorf("the process exited before it was healthy")
		case <-ctx.Done():
			if ctx.Err() == context.DeadlineExceeded {
				return fmt.Errorf("not healthy within %s: %w", timeout, last)
			}
			return ctx.Err()
		case <-tick.C:
		}
	}
}

func (h Health) probe(ctx context.Context, t *Target) error {
	if h.Path == "" {
		c, err := t.dial(ctx, "tcp", t.Upstream())
		if err != nil {
			return err
		}
		return c.Close()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.resolve(h.Path), nil)
	if err != nil {
		return err
	}
	resp, err := t.healthClient().Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("GET %s: status %d", h.Path, resp.StatusCode)
	}
	return nil
}

// healthClient never reuses a connection (one left from before a
// restart would only fail) and never follows a redirect.
func (t *Target) healthClient() *http.Client {
	return &http.Client{
		Timeout:   time.Second,
		Transport: t.transport(false),
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// String describes the check for messages.
func (h Health) String() string {
	if h.Path == "" {
		return "a TCP connection"
	}
	return "GET " + h.Path
}
