package targets

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"text/template"
	tparse "text/template/parse"
	"time"

	"github.com/idemspec/idemspec/internal/exactjson"
)

// An operation that acts on a parent (capture a payment, append an event
// to an order) needs the parent first. Its setup: requests make one,
// once per marker: every scenario's resource and every key of the
// properties gets a parent of its own, so the effects the oracle counts
// under one marker are that marker's alone. Setup goes straight to the
// target (never through a fault) and passes the run's gate; its JSON
// answers feed the templates of the create path and body and of the
// oracle's paths as {{.Setup.NAME.FIELD}}.

// setupSpec is one item of setup:, as written.
type setupSpec struct {
	Name        string    `yaml:"name" required:"true"`
	Method      string    `yaml:"method"`
	Path        string    `yaml:"path" required:"true"`
	Body        string    `yaml:"body"`
	ContentType string    `yaml:"content_type"`
	Headers     stringMap `yaml:"headers"`
}

// SetupRequest is one request an operation sends before its first create
// for a marker. Path, Body and header values are templates over
// setupData.
type SetupRequest struct {
	Name        string
	Method      string
	Path        *template.Template
	Body        *template.Template // nil: no body
	ContentType string
	Headers     map[string]*template.Template
}

// setupData is what a setup request's templates are rendered with: the
// marker, a fresh key (a parent's create is often idempotent itself),
// and the answers of the setup requests before it.
type setupData struct {
	Marker string
	Key    string
	Setup  map[string]any
}

// markerData is what the oracle's paths are rendered with: the marker,
// its setup answers, and a window of times around the reading, for a
// list that requires one (Adyen's createdSince and createdUntil).
type markerData struct {
	Marker       string
	Setup        map[string]any
	Since, Until string
}

// readingWindow is how far the window of {{.Since}} and {{.Until}}
// reaches each side of a reading: a marker's resources are made
// minutes before its reading, and a clock of the API's a little off
// still falls in it.
const readingWindow = 24 * time.Hour

// readingData is what a reading of marker's resources renders the
// oracle's path with: Since a day before now, Until a day after, in
// RFC 3339 (UTC, whole seconds).
func readingData(marker string, setup map[string]any) markerData {
	now := time.Now().UTC().Truncate(time.Second)
	return markerData{Marker: marker, Setup: setup, Since: now.Add(-readingWindow).Format(time.RFC3339), Until: now.Add(readingWindow).Format(time.RFC3339)}
}

// MarkerIn finds a marker in a request body: NewMarker's form.
var MarkerIn = regexp.MustCompile(`idemspec-[0-9a-f]{8}-[A-Za-z0-9]+-[0-9]+`)

// NewMarker is the marker of a run's n-th resource in scope: the form
// MarkerIn finds again, which is how a create request's bytes say whose
// parent they act on.
func NewMarker(runID, scope string, n int64) string {
	return fmt.Sprintf("idemspec-%s-%s-%d", runID, scope, n)
}

// setupName is what a setup request may be called: a template field.
var setupName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

// probeSetup is what every {{.Setup.NAME.FIELD}} renders to at load.
const probeSetup = "idemspec-setup-probe"

// setup reads setup:. Each request may use the answers of those before it.
func (d *document) setup(specs []setupSpec, t *Target, expand expander) error {
	for i, s := range specs {
		at := fmt.Sprintf("setup[%d]", i)
		if !setupName.MatchString(s.Name) {
			return d.errorf(at+".name", "%q is not a setup name (a letter, then letters, digits or _: it is written {{.Setup.%s.FIELD}})", s.Name, s.Name)
		}
		if slices.ContainsFunc(t.Setup, func(r SetupRequest) bool { return r.Name == s.Name }) {
			return d.errorf(at+".name", "%q names a setup request already", s.Name)
		}
		r := SetupRequest{Name: s.Name, Method: strings.ToUpper(or(s.Method, http.MethodPost)), ContentType: or(s.ContentType, "application/json"), Headers: map[string]*template.Template{}}
		if !ValidHeaderName(r.Method) {
			return d.errorf(at+".method", "%q is not an HTTP method", s.Method)
		}
		if err := checkHeader("Content-Type", r.ContentType); err != nil {
			return d.errorf(at+".content_type", "%v", err)
		}
		known := t.Setup // only the requests before this one have answered
		var err error
		if r.Path, _, err = d.setupTemplate(at+".path", s.Path, known, inPath); err != nil {
			return err
		}
		if s.Body != "" {
			if r.Body, _, err = d.setupTemplate(at+".body", s.Body, known, bodyEscaping(r.ContentType)); err != nil {
				return err
			}
		}
		for _, e := range s.Headers {
			field := at + ".headers." + e.Key
			v, err := expand(field, e.Value)
			if err != nil {
				return err
			}
			tmpl, rendered, err := d.setupTemplate(field, v, known, asWritten)
			if err != nil {
				return err
			}
			if err := checkHeader(e.Key, rendered); err != nil {
				return d.errorf(field, "%v", t.Redact(err.Error()))
			}
			if SecretHeader(e.Key) {
				d.secrets(t, field, headerSecrets(v)...)
			}
			r.Headers[e.Key] = tmpl
		}
		t.Setup = append(t.Setup, r)
	}
	return nil
}

// setupTemplate checks a template of a setup request: it may name the
// marker, a key and the answers of the requests before it.
func (d *document) setupTemplate(field, text string, known []SetupRequest, esc escaping) (*template.Template, string, error) {
	probe, err := d.probeSetup(field, text, known)
	if err != nil {
		return nil, "", err
	}
	data := setupData{Marker: probeMarker, Key: probeKey, Setup: probe}
	const fields = "{{.Marker}}, {{.Key}}, {{.Setup.NAME.FIELD}} of an earlier setup request"
	if esc == inPath {
		return d.pathTemplate(field, text, data, fields)
	}
	return d.renderTemplate(field, text, esc, data, fields)
}

// probeSetup is the data {{.Setup...}} in text is checked with at load:
// every field path it names, holding probeSetup. A name that is not an
// earlier setup request's is an error, since its answer will not be
// there when the template is rendered.
func (d *document) probeSetup(field, text string, known []SetupRequest) (map[string]any, error) {
	tmpl, err := parseTemplate(field, text, asWritten)
	if err != nil {
		return nil, d.errorf(field, "%v", err)
	}
	probe := map[string]any{}
	var bad error
	walkFields(tmpl.Root, func(ident []string) {
		if bad != nil || len(ident) == 0 || ident[0] != "Setup" {
			return
		}
		if len(ident) < 3 {
			bad = d.errorf(field, "{{.%s}}: name a setup request and a field of its answer, as {{.Setup.NAME.FIELD}}", strings.Join(ident, "."))
			return
		}
		if !slices.ContainsFunc(known, func(r SetupRequest) bool { return r.Name == ident[1] }) {
			names := make([]string, len(known))
			for i, r := range known {
				names[i] = r.Name
			}
			bad = d.errorf(field, "{{.%s}}: no setup request %q answers before this (known: %s)", strings.Join(ident, "."), ident[1], or(strings.Join(names, ", "), "none: declare it under setup:"))
			return
		}
		m := probe
		for i, part := range ident[1:] {
			if i == len(ident)-2 {
				if _, ok := m[part].(map[string]any); !ok {
					m[part] = probeSetup
				}
				return
			}
			next, ok := m[part].(map[string]any)
			if !ok {
				next = map[string]any{}
				m[part] = next
			}
			m = next
		}
	})
	return probe, bad
}

// walkFields calls f with every field chain (.A.B.C) in a template.
func walkFields(n tparse.Node, f func(ident []string)) {
	switch n := n.(type) {
	case *tparse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			walkFields(c, f)
		}
	case *tparse.ActionNode:
		walkFields(n.Pipe, f)
	case *tparse.PipeNode:
		if n == nil {
			return
		}
		for _, c := range n.Cmds {
			walkFields(c, f)
		}
	case *tparse.CommandNode:
		for _, a := range n.Args {
			walkFields(a, f)
		}
	case *tparse.FieldNode:
		f(n.Ident)
	case *tparse.IfNode:
		walkFields(&n.BranchNode, f)
	case *tparse.RangeNode:
		walkFields(&n.BranchNode, f)
	case *tparse.WithNode:
		walkFields(&n.BranchNode, f)
	case *tparse.BranchNode:
		walkFields(n.Pipe, f)
		walkFields(n.List, f)
		walkFields(n.ElseList, f)
	case *tparse.TemplateNode:
		walkFields(n.Pipe, f)
	}
}

// setups holds each marker's setup answers, made once: concurrent
// creates of one marker (a burst) wait for the same setup.
type setups struct {
	mu   sync.Mutex
	done map[string]*setupOnce
}

type setupOnce struct {
	ready chan struct{}
	data  map[string]any
	err   error
}

// SetupFor is the setup answers of marker, sending the setup requests
// the first time (nil, nil for an operation without setup).
func (t *Target) SetupFor(ctx context.Context, marker string) (map[string]any, error) {
	if len(t.Setup) == 0 {
		return nil, nil
	}
	s := t.setups
	s.mu.Lock()
	once, ok := s.done[marker]
	if !ok {
		once = &setupOnce{ready: make(chan struct{})}
		s.done[marker] = once
	}
	s.mu.Unlock()
	if !ok {
		once.data, once.err = t.runSetup(ctx, marker)
		close(once.ready)
	}
	select {
	case <-once.ready:
		return once.data, once.err
	case <-ctx.Done():
		return nil, fmt.Errorf("setup for %s: %w", marker, ctx.Err())
	}
}

// setupMade is the setup answers of marker when its setup ran and
// answered (true with nil for an operation without setup); it never
// sends one.
func (t *Target) setupMade(marker string) (map[string]any, bool) {
	if len(t.Setup) == 0 {
		return nil, true
	}
	t.setups.mu.Lock()
	once, ok := t.setups.done[marker]
	t.setups.mu.Unlock()
	if !ok {
		return nil, false
	}
	select {
	case <-once.ready:
		return once.data, once.err == nil
	default:
		return nil, false // still running: the run is over, its creates were not sent
	}
}

// runSetup sends the setup requests for marker, in order, as the target
// itself: a tenant's credentials in ctx are left out, so a parent made
// for T1 is the target's own, as for every other check.
func (t *Target) runSetup(ctx context.Context, marker string) (map[string]any, error) {
	ctx = context.WithValue(ctx, tenantKey{}, Tenant{})
	answers := map[string]any{}
	for _, r := range t.Setup {
		v, err := t.sendSetup(ctx, r, setupData{Marker: marker, Key: t.Key.NewRunKey(runOf(marker)), Setup: answers})
		if err != nil {
			return nil, fmt.Errorf("setup %s: %w", r.Name, err)
		}
		answers[r.Name] = v
	}
	return answers, nil
}

// sendSetup sends one setup request and decodes its JSON answer, which
// must be a 2xx.
func (t *Target) sendSetup(ctx context.Context, r SetupRequest, data setupData) (any, error) {
	path, err := execute(r.Path, data)
	if err != nil {
		return nil, err
	}
	var body io.Reader
	if r.Body != nil {
		b, err := execute(r.Body, data)
		if err != nil {
			return nil, err
		}
		body = strings.NewReader(b)
	}
	u, err := t.pathURL(path)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, u, body)
	if err != nil {
		return nil, err
	}
	t.addHeaders(req)
	if r.Body != nil {
		req.Header.Set("Content-Type", r.ContentType)
	}
	for name, tmpl := range r.Headers {
		v, err := execute(tmpl, data)
		if err != nil {
			return nil, err
		}
		if err := checkHeader(name, v); err != nil {
			// An earlier answer's value: say so, not "not reachable".
			return nil, fmt.Errorf("%s: %v", tmpl.Name(), t.Redact(err.Error()))
		}
		req.Header.Set(name, v)
	}
	resp, err := t.Direct.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", r.Method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", r.Method, path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// Typed, so --wait can tell a service still starting (a 5xx).
		return nil, fmt.Errorf("%s %s answered %w: %s", r.Method, path, StatusError(resp.StatusCode), t.Redact(snippet(b)))
	}
	v, err := exactjson.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s %s: the answer is not JSON, and its fields feed {{.Setup.%s...}}: %v", r.Method, path, r.Name, err)
	}
	return v, nil
}

// snippet is the start of an answer, for an error.
func snippet(b []byte) string {
	const max = 200
	s := strings.TrimSpace(string(b))
	if len(s) > max {
		s = s[:max] + "..."
	}
	return s
}

// setupTimeout bounds the setup of one marker when no caller's context
// does (a body is rendered before any request): each request is bounded
// by the direct client's own timeout too.
const setupTimeout = 30 * time.Second

// createPath reads create.path: a path as written, or with setup, a
// template over the setup answers ({{.Setup.NAME.FIELD}}).
func (d *document) createPath(text string, t *Target) (string, *template.Template, error) {
	probe, err := d.probeSetup("create.path", text, t.Setup)
	if err != nil {
		return "", nil, err
	}
	if len(t.Setup) == 0 {
		_, path, err := d.pathTemplate("create.path", text, noFields{}, "")
		return path, nil, err
	}
	tmpl, _, err := d.pathTemplate("create.path", text, struct{ Setup map[string]any }{probe}, "{{.Setup.NAME.FIELD}}")
	return text, tmpl, err
}

// createPath is the path of a create whose bytes are body: with setup,
// rendered from the setup answers of the marker the body carries.
func (t *Target) createPath(ctx context.Context, body []byte) (string, error) {
	if t.Create.PathTemplate == nil {
		return t.Create.Path, nil
	}
	marker := MarkerIn.Find(body)
	if marker == nil {
		return "", fmt.Errorf("create.path: the body carries no marker, so no setup answers to fill {{.Setup...}}")
	}
	setup, err := t.SetupFor(ctx, string(marker))
	if err != nil {
		return "", err
	}
	return execute(t.Create.PathTemplate, struct{ Setup map[string]any }{setup})
}

// runOf is the run id a marker carries, for the keys of its setup.
func runOf(marker string) string {
	if !MarkerIn.MatchString(marker) {
		return ""
	}
	return strings.Split(marker, "-")[1]
}

// markerPath checks a path that reads or removes one marker's
// resources (the oracle's, cleanup's): it may name the marker and the
// marker's setup answers, and with id, must name one resource's {{.ID}}.
func (d *document) markerPath(field, text string, t *Target, id bool, mustHold ...string) (*template.Template, string, error) {
	probe, err := d.probeSetup(field, text, t.Setup)
	if err != nil {
		return nil, "", err
	}
	fields := "{{.Marker}}"
	if len(t.Setup) > 0 {
		fields += ", {{.Setup.NAME.FIELD}}"
	}
	if id {
		return d.pathTemplate(field, text, cleanupItem{ID: probeID, Marker: probeMarker, Setup: probe}, "{{.ID}}, "+fields, append(mustHold, probeID)...)
	}
	return d.pathTemplate(field, text, readingData(probeMarker, probe), fields+", {{.Since}}, {{.Until}}", mustHold...)
}
