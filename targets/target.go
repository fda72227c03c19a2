package targets

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"text/template"
	"time"
)

// Target is an HTTP API under test: what its file (or a fake's
// description) says, and the Runtime idemspec holds of it.
type Target struct {
	Name   string
	Source string // the target file, or "fake:NAME"
	// Operation names the operation of a file with operations: ("" for a
	// file with one create); Operations, on the file's target, lists them
	// all (operation.go).
	Operation  string
	Operations []*Target

	BaseURL *url.URL
	// Setup are the requests an action on a parent sends before its
	// first create for a marker (setup.go); Runtime holds their answers.
	Setup  []SetupRequest
	Create Create
	Key    Key
	// Headers are sent with every request (create, oracle, lookup).
	Headers http.Header
	// Secrets are values that must never appear in a report or log
	// (everything that came from an ${ENV} expansion, credential header
	// values, passwords in URLs and DSNs). Each is redacted in every form
	// it may be written in (see Redact).
	Secrets []string
	// Warnings are what loading found questionable but not wrong (a
	// secret too short to redact, a TODO): run prints them.
	Warnings []string
	// Findings are the file's TODOs, warnings and unset variables, in
	// line order (findings.go): validate prints them.
	Findings []Finding
	// Unset names the ${VAR}s the environment does not set, which only
	// a load with LoadOptions.AllowUnset lets through: such a target is
	// checked, never run.
	Unset []string
	// written is base_url as written when it could not be read (a
	// variable it names is unset): Address shows it.
	written string

	Oracle Oracle
	// CountedBy says what a run's counts rest on besides the oracle ("":
	// its readings alone), for the header: an unmodified program judged
	// by `client --target` may carry no marker, and then its resources
	// are counted from the wire.
	CountedBy string
	// LookupPath, when set, reads a key's record: a template with {{.Key}}.
	LookupPath string
	// LookupIDField is the dotted path of the resource id in a look-up
	// answer; an answer without one means "known, still in progress".
	LookupIDField string
	// Reconcile is how a client learns the fate of an unknown outcome:
	// ReconcileLookup, ReconcileOracle or ReconcileNone.
	Reconcile string

	Profile           Profile
	Volatile          []string // answer fields that may differ between replays
	InProgressTimeout time.Duration
	// FailTrigger, when set, makes a create fail on purpose (K6).
	FailTrigger *FailTrigger

	// CrashWindow is where, after the request was delivered, a crash
	// mid-request lands on a target without crash points (drawn in it).
	CrashWindow Window

	// Instances are further addresses of the same service (sharing its
	// store); nil for one instance.
	Instances []*url.URL
	// Tenants are the credentials T1 compares (none, or two or more).
	Tenants []Tenant

	// TLS is the client side of an https:// target (nil for http://).
	TLS *tls.Config

	// AllowRemote says the target file allows a non-loopback base URL.
	AllowRemote bool
	// Cleanup, when set, removes what a run created at its end.
	Cleanup *Cleanup

	// redaction is the replacer built from Secrets (redact.go).
	redaction redaction

	Runtime
}

// Runtime is what idemspec holds of a target while it runs, beside what
// the target file says: the process it started or the hooks that
// restart it, the client straight to it, the addresses its hosts
// resolved to, and the answers of each marker's setup.
type Runtime struct {
	// Lifecycle is set when idemspec owns the target's process (the
	// built-in fakes, managed processes) or can restart it through a
	// hook; nil for a target it only calls. What it can do beyond Stop
	// (Restarter, Crasher, CrashPointer) is found by type assertion.
	Lifecycle Lifecycle
	// others are the further instances idemspec started (fakes).
	others []Lifecycle

	// Direct is the client the oracle and look-ups use: straight to the
	// target, never through the proxy, so faults never blind the judge.
	Direct *http.Client

	// pins are the addresses the target's hosts resolved to (contact.go).
	pins pins
	// setups holds each marker's setup answers (setup.go).
	setups *setups
}

// Create describes the create call.
type Create struct {
	Method string
	// Path is the path as written; with setup, PathTemplate renders it
	// from a marker's setup answers ({{.Setup.NAME.FIELD}}).
	Path         string
	PathTemplate *template.Template
	// setupProbe is what the body was checked with at load.
	setupProbe  map[string]any
	ContentType string
	IDField     string // dotted path of the resource id in the JSON answer
	Body        *template.Template
}

// Key describes the idempotency key.
type Key struct {
	// In is where a request carries the key: KeyInHeader, KeyInBody or
	// KeyInQuery.
	In string
	// Name is the header's name, the body field's dotted JSON path, or
	// the query parameter's name.
	Name   string
	Format string // FormatUUID or FormatPattern
	// Pattern is the regular expression keys are generated from (and
	// judged against) when Format is FormatPattern.
	Pattern string
	// Declared says the target declared the format (format: or
	// pattern:); without it, keys are UUIDs, idemspec's default, and
	// only the draft's grammar judges which keys the target must refuse.
	Declared bool
	// MaxLength is the longest key the target declared it takes (0:
	// none declared).
	MaxLength int
	// Required says a create without the key is refused (the profile's
	// default unless the target file says).
	Required bool
}

// FailTrigger is how the harness makes one create fail with a 5xx before
// it takes effect (a header the target honours in a test deployment; the
// built-in fakes honour fakes.FailHeader). K6 needs it.
type FailTrigger struct {
	Header string
	Value  string
}

// Payload is what varies between create requests: Marker ties resources
// to this run (the oracle counts by it), Variant makes a different
// payload under the same key.
type Payload struct {
	Marker  string
	Variant string
}

// Upstream is the host:port the harness proxies to.
func (t *Target) Upstream() string {
	host := t.BaseURL.Host
	if t.BaseURL.Port() == "" {
		port := "80"
		if t.BaseURL.Scheme == "https" {
			port = "443"
		}
		host = net.JoinHostPort(t.BaseURL.Hostname(), port)
	}
	return host
}

// Body renders the create body for a payload. The harness renders it once
// and resends those exact bytes on every retry; a key in the body is
// placed when a request is built (NewCreate).
//
// With setup, the first body of a marker sends the marker's setup
// requests; their answers fill {{.Setup...}}.
func (t *Target) Body(p Payload) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	setup, err := t.SetupFor(ctx, p.Marker)
	if err != nil {
		return nil, err
	}
	b, err := execute(t.Create.Body, bodyData{p, keySlot, setup})
	if err != nil {
		return nil, fmt.Errorf("render %w", err)
	}
	return []byte(b), nil
}

// NewCreate builds one create attempt. A key of "" sends no key.
//
// The body is a plain ReadCloser with no GetBody, so net/http cannot
// rewind it: its Transport treats a request carrying an Idempotency-Key as
// replayable and would otherwise resend it on a broken keep-alive
// connection, creating the very duplicates under test.
func (t *Target) NewCreate(ctx context.Context, key string, body []byte) (*http.Request, error) {
	if key == "" {
		return t.NewCreateWith(ctx, nil, body)
	}
	return t.NewCreateWith(ctx, []string{key}, body)
}

// ResourceID reads the resource id from a JSON answer, or "".
func (t *Target) ResourceID(body []byte) string {
	return ResourceIDOf(body, t.Create.IDField)
}

func (t *Target) addHeaders(req *http.Request) {
	for name, values := range t.Headers {
		for _, v := range values {
			req.Header.Add(name, v)
		}
	}
	if tn, ok := req.Context().Value(tenantKey{}).(Tenant); ok {
		for name, values := range tn.Headers {
			req.Header[name] = values
		}
	}
}

// get sends a GET straight to the target (for oracles and look-ups).
func (t *Target) get(ctx context.Context, path string) (int, []byte, error) {
	u, err := t.pathURL(path)
	if err != nil {
		return 0, nil, err
	}
	status, _, b, err := t.getURL(ctx, u)
	return status, b, err
}

// getURL sends a GET to a URL on base_url's host (a resolved path, or a
// next page's link the oracle checked), straight to the target.
func (t *Target) getURL(ctx context.Context, u string) (int, http.Header, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, nil, nil, err
	}
	t.addHeaders(req)
	resp, err := t.Direct.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxReadAnswer+1))
	if err == nil && len(b) > MaxReadAnswer {
		// Cut, it would be read as a short list or as JSON that ends
		// too soon: say what happened instead.
		return resp.StatusCode, resp.Header, nil, fmt.Errorf("the answer is longer than %d MiB, the most idemspec reads of an oracle's answer: narrow the path (a filter, a smaller page)", MaxReadAnswer>>20)
	}
	return resp.StatusCode, resp.Header, b, err
}

// MaxReadAnswer bounds what is read of an answer to the oracle, a
// look-up or a next page.
const MaxReadAnswer = 16 << 20

// Start starts a target idemspec manages (a process: section); dir is
// where its log goes. Other targets are already running.
func (t *Target) Start(ctx context.Context, dir string) error {
	if s, ok := t.Lifecycle.(Starter); ok {
		return s.Start(ctx, dir)
	}
	return nil
}

// Close stops a target idemspec started.
func (t *Target) Close() error {
	for _, o := range t.Each() {
		if c, ok := o.Oracle.(io.Closer); ok {
			c.Close()
		}
	}
	if c, ok := t.Oracle.(io.Closer); ok && len(t.Operations) > 0 && t.Operations[0] != t {
		c.Close() // the first operation, left out by --operation
	}
	for _, o := range t.others {
		o.Stop()
	}
	if t.Lifecycle == nil {
		return nil
	}
	return t.Lifecycle.Stop()
}
