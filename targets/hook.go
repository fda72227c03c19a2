package targets

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/idemspec/idemspec/internal/outfile"
)

// RestartHook restarts a target idemspec does not run, through a command
// (systemctl, kubectl rollout restart, docker restart) or an admin HTTP
// endpoint, then waits for its health check: the restart: section of a
// target file. A hook can restart a target but not crash it in the
// middle of a request, so it is a Restarter and not a Crasher.
type RestartHook struct {
	target *Target
	// Command is run with sh -c, in its own process group; if it
	// overruns Timeout, it and everything it started are stopped. What it
	// leaves running after a normal exit is the restarted target.
	Command string
	HTTP    *HTTPHook
	Timeout time.Duration
	Health  Health

	logPath string
}

// HTTPHook is an admin request that restarts the target.
type HTTPHook struct {
	Method string
	URL    string // absolute, or a path on the target's base URL
	Header http.Header

	absolute *url.URL // URL when it is absolute: an address the target names
}

// target is where the hook's request goes.
func (h *HTTPHook) target(t *Target) string {
	if h.absolute != nil {
		return h.absolute.String()
	}
	return t.resolve(h.URL)
}

// DefaultHookTimeout bounds a restart hook.
const DefaultHookTimeout = time.Minute

// Start remembers where the hook's output is logged; the target itself
// is already running.
func (h *RestartHook) Start(_ context.Context, dir string) error {
	h.logPath = filepath.Join(dir, LogName)
	f, err := outfile.Create(h.logPath) // this run's log, not an older one's
	if err != nil {
		return fmt.Errorf("restart: log file: %w", err)
	}
	return f.Close()
}

// Stop does nothing: idemspec did not start the target.
func (h *RestartHook) Stop() error { return nil }

// Restart runs the hook and waits until the target is healthy again. The
// hook must return only once the old instance stopped serving, or the
// health check may be answered by it.
func (h *RestartHook) Restart(ctx context.Context) error {
	var err error
	if h.HTTP != nil {
		hctx, cancel := context.WithTimeout(ctx, h.Timeout)
		err = h.post(hctx)
		cancel()
	} else {
		err = h.run(ctx) // bounded by h.Timeout in shell
	}
	if err != nil {
		return err
	}
	if err := h.Health.await(ctx, h.target, nil); err != nil {
		return fmt.Errorf("after the restart hook, the target was %w", err)
	}
	return nil
}

func (h *RestartHook) run(ctx context.Context) error {
	out, err := h.target.shell(ctx, shellRun{field: "restart.command", script: h.Command, timeout: h.Timeout, keep: true})
	h.logOutput("restart.command", []byte(out.Stdout+out.Stderr))
	return err
}

func (h *RestartHook) post(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, h.HTTP.Method, h.HTTP.target(h.target), nil)
	if err != nil {
		return fmt.Errorf("restart.http: %w", err)
	}
	for name, vals := range h.HTTP.Header {
		req.Header[name] = vals
	}
	resp, err := h.target.transport(false).RoundTrip(req)
	if err != nil {
		return fmt.Errorf("restart.http: %s", h.target.Redact(err.Error()))
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	resp.Body.Close()
	h.logOutput("restart.http", body)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("restart.http: %s answered %d%s", h.HTTP.Method, resp.StatusCode, lastLine(h.target.Redact(string(body))))
	}
	return nil
}

// logOutput appends what the hook said to the target log, if there is one.
func (h *RestartHook) logOutput(what string, out []byte) {
	if h.logPath == "" {
		return
	}
	f, err := outfile.Append(h.logPath)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "idemspec %s: %s ran\n%s", time.Now().UTC().Format(time.RFC3339Nano), what, h.target.Redact(string(out)))
	if len(out) > 0 && out[len(out)-1] != '\n' {
		fmt.Fprintln(f)
	}
}

// lastLine quotes the last line of a hook's output for an error message.
func lastLine(out string) string {
	out = strings.TrimSpace(out)
	if out == "" {
		return ""
	}
	if i := strings.LastIndexByte(out, '\n'); i >= 0 {
		out = out[i+1:]
	}
	if len(out) > 200 {
		out = out[:200] + "..."
	}
	return fmt.Sprintf(": %q", out)
}
