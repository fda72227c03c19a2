package targets

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"text/template"
	"time"
)

// cleanupSpec is the cleanup: section: how to remove what a run created,
// at the end of the run (also after Ctrl-C).
type cleanupSpec struct {
	Delete  *deleteSpec `yaml:"delete"`
	Command string      `yaml:"command"`
	Timeout string      `yaml:"timeout"`
}

type deleteSpec struct {
	Method string `yaml:"method"`
	Path   string `yaml:"path" required:"true"`
}

// Cleanup removes the resources a run created: either a delete request
// per resource the oracle lists for each of the run's markers, or one
// command that gets the run id and markers in its environment.
type Cleanup struct {
	Method  string
	Path    *template.Template // {{.ID}} and {{.Marker}}
	Command string
	Timeout time.Duration
}

// CleanupResult says what a cleanup did.
type CleanupResult struct {
	Deleted int
	Failed  []string
}

// DefaultCleanupTimeout bounds a cleanup when the file gives no timeout.
const DefaultCleanupTimeout = time.Minute

func (d *document) cleanup(s *cleanupSpec, t *Target, expand expander) error {
	if s == nil {
		return nil
	}
	c := &Cleanup{}
	// Capped like every wait (MaxWait): a cleanup of 10h would hold the
	// run's end, its reports written, for that long.
	var err error
	if c.Timeout, err = d.duration("cleanup.timeout", s.Timeout, DefaultCleanupTimeout); err != nil {
		return err
	}
	switch {
	case (s.Delete == nil) == (s.Command == ""):
		return d.errorf("cleanup", "give either delete: (a request per resource) or command:, exactly one")
	case s.Delete != nil:
		c.Method = strings.ToUpper(or(s.Delete.Method, http.MethodDelete))
		if c.Path, _, err = d.markerPath("cleanup.delete.path", s.Delete.Path, t, true); err != nil {
			return err
		}
	default:
		cmd, err := expand("cleanup.command", s.Command)
		if err != nil {
			return err
		}
		c.Command = cmd
	}
	t.Cleanup = c
	return nil
}

type cleanupItem struct {
	ID, Marker string
	Setup      map[string]any // an action's parent, in oracle.lookup and cleanup.delete
}

// RunCleanup removes what the run with runID created under markers. A
// delete cleanup asks the oracle which resources carry each marker (so
// it needs an oracle that lists ids) and deletes each; a command cleanup
// runs once with IDEMSPEC_RUN_ID and IDEMSPEC_MARKERS (one per line).
func (t *Target) RunCleanup(ctx context.Context, runID string, markers []string, observe func(context.Context, string) (Observation, error)) (CleanupResult, error) {
	c := t.Cleanup
	var res CleanupResult
	if c == nil {
		return res, nil
	}
	if c.Command != "" {
		// The command's timeout is its bound (shell applies it), so an
		// overrun is reported as cleanup.timeout, not as the few
		// microseconds less a deadline set here would leave.
		_, err := t.shell(ctx, shellRun{
			field: "cleanup.command", script: c.Command, timeout: c.Timeout,
			env: []string{"IDEMSPEC_RUN_ID=" + runID, "IDEMSPEC_MARKERS=" + strings.Join(markers, "\n")},
		})
		return res, err
	}
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	for _, m := range markers {
		setup, ok := t.setupMade(m)
		if !ok {
			continue // its setup never ran, so no create was sent for it
		}
		obs, err := observe(ctx, m)
		if err != nil {
			res.Failed = append(res.Failed, fmt.Sprintf("marker %s: %v", m, err))
			continue
		}
		for _, id := range obs.IDs {
			if err := t.deleteOne(ctx, cleanupItem{ID: id, Marker: m, Setup: setup}); err != nil {
				res.Failed = append(res.Failed, fmt.Sprintf("resource %s: %v", id, err))
				continue
			}
			res.Deleted++
		}
	}
	if len(res.Failed) > 0 {
		return res, fmt.Errorf("cleanup: %d deleted, %d failed (first: %s)", res.Deleted, len(res.Failed), t.Redact(res.Failed[0]))
	}
	return res, nil
}

func (t *Target) deleteOne(ctx context.Context, it cleanupItem) error {
	path, err := execute(t.Cleanup.Path, it)
	if err != nil {
		return err
	}
	u, err := t.pathURL(path)
	if err != nil {
		return fmt.Errorf("cleanup.delete.path: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, t.Cleanup.Method, u, nil)
	if err != nil {
		return err
	}
	t.addHeaders(req)
	resp, err := t.Direct.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if resp.StatusCode >= 300 && resp.StatusCode != http.StatusNotFound {
		return fmt.Errorf("%s %s: status %d", t.Cleanup.Method, path, resp.StatusCode)
	}
	return nil
}
