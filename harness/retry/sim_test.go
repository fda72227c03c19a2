package retry_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"syscall"
	"time"

	"github.com/idemspec/idemspec/harness/retry"
)

// A simulated world for the client: a clock that moves only when the
// client waits, and a network plus idempotent server that answer each
// request as a script says. Everything runs on the test's goroutine.

// simClock is simulated time. A request's deadline travels in its
// context, so the network knows when the client would give up.
type simClock struct{ now time.Time }

type deadlineKey struct{}

func newSimClock() *simClock { return &simClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *simClock) Now() time.Time { return c.now }

func (c *simClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.now = c.now.Add(max(d, 0))
	return nil
}

func (c *simClock) WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	return context.WithValue(ctx, deadlineKey{}, c.now.Add(d)), cancel
}

// wait lets d pass on a request, or only until its deadline: false
// means the client gave up first.
func (c *simClock) wait(ctx context.Context, d time.Duration) bool {
	deadline, ok := ctx.Value(deadlineKey{}).(time.Time)
	if !ok {
		panic("a request without a deadline: the client must bound every request")
	}
	if c.now.Add(d).Before(deadline) {
		c.now = c.now.Add(d)
		return true
	}
	c.now = maxTime(c.now, deadline)
	return false
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// Create outcomes a script can choose. "+applied" means the server ran
// the request before the answer went missing or failed.
var createOutcomes = []string{
	"refused-connection", // dial refused: never written
	"blackhole",          // written, swallowed, no answer
	"lost",               // written, applied, answer lost
	"reset",              // written, connection reset before the server ran it
	"reset+applied",      // written, applied, then reset
	"201",                // created (or replayed)
	"500", "500+applied", // server errors
	"503 retry-after",
	"409 retry-after", // another attempt with this key in flight
	"429 retry-after",
	"400", "422", // refusals
}

// Lookup outcomes: "truth" answers honestly from the server's state.
var lookupOutcomes = []string{"truth", "truth", "timeout", "500", "in-progress"}

// script decides what the simulated world does next.
type script interface {
	create(n int) string
	lookup(n int) string
	latency(label string, timeout time.Duration) time.Duration
	retryAfter(label string) string
	fatalf(format string, args ...any)
}

// wireEvent is one request as the network saw it.
type wireEvent struct {
	Create  bool
	Key     string
	Outcome string
	// MayHaveApplied: written, and the answer did not say "not done".
	MayHaveApplied bool
	// NotFound: a look-up answered that the server knows nothing.
	NotFound bool
	// Journal is the journaled operation when the request left.
	Journal retry.Operation
	Run     int
}

// simServer is the network and a server that deduplicates by key.
type simServer struct {
	s       script
	clock   *simClock
	journal retry.Journal
	opID    string

	resources map[string]string // key -> resource id
	wire      []wireEvent
	run       int
	creates   int
	lookups   int
}

// maxRequests stops a runaway client: the property tests' own bound.
const maxRequests = 500

func newSimServer(s script, clock *simClock, j retry.Journal, opID string) *simServer {
	return &simServer{s: s, clock: clock, journal: j, opID: opID, resources: map[string]string{}}
}

func (v *simServer) Do(req *http.Request) (*http.Response, error) {
	if len(v.wire) >= maxRequests {
		v.s.fatalf("[budget] the client sent %d requests and did not stop", len(v.wire))
	}
	if req.GetBody != nil {
		v.s.fatalf("a request with GetBody: net/http could resend it on its own")
	}
	if req.Method == http.MethodGet {
		return v.lookup(req)
	}
	return v.create(req)
}

func (v *simServer) create(req *http.Request) (*http.Response, error) {
	v.creates++
	key := req.Header.Get("Idempotency-Key")
	op, _ := v.journal.Load(context.Background(), v.opID)
	outcome := v.s.create(v.creates)
	ev := wireEvent{Create: true, Key: key, Outcome: outcome, Journal: op, Run: v.run}
	ctx := req.Context()
	if outcome == "refused-connection" {
		v.clock.wait(ctx, time.Millisecond)
		v.wire = append(v.wire, ev)
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	}
	if _, err := io.ReadAll(req.Body); err != nil {
		v.s.fatalf("reading the request body: %v", err)
	}
	if trace := httptrace.ContextClientTrace(ctx); trace != nil && trace.WroteRequest != nil {
		trace.WroteRequest(httptrace.WroteRequestInfo{})
	}
	ev.MayHaveApplied = true
	defer func() { v.wire = append(v.wire, ev) }()
	label := fmt.Sprintf("create %d latency", v.creates)
	switch outcome {
	case "blackhole":
		v.clock.wait(ctx, forever)
		return nil, timeout()
	case "lost":
		v.apply(key)
		v.clock.wait(ctx, forever)
		return nil, timeout()
	case "reset", "reset+applied":
		if outcome == "reset+applied" {
			v.apply(key)
		}
		if !v.clock.wait(ctx, v.s.latency(label, time.Second)) {
			return nil, timeout()
		}
		return nil, &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	}
	status, _, _ := strings.Cut(outcome, " ")
	if outcome == "201" || outcome == "500+applied" {
		v.apply(key)
	}
	if !v.clock.wait(ctx, v.s.latency(label, time.Second)) {
		return nil, timeout()
	}
	header := http.Header{}
	if strings.HasSuffix(outcome, "retry-after") {
		header.Set("Retry-After", v.s.retryAfter(fmt.Sprintf("create %d retry-after", v.creates)))
	}
	body := `{"detail":"simulated"}`
	switch status {
	case "201":
		body = fmt.Sprintf(`{"id":%q}`, v.resources[key])
	case "400", "422", "429":
		ev.MayHaveApplied = false // the server says it did nothing
	}
	var code int
	fmt.Sscan(status, &code)
	return answer(code, header, body), nil
}

func (v *simServer) lookup(req *http.Request) (*http.Response, error) {
	v.lookups++
	key := strings.TrimPrefix(req.URL.Path, "/keys/")
	op, _ := v.journal.Load(context.Background(), v.opID)
	outcome := v.s.lookup(v.lookups)
	ev := wireEvent{Key: key, Outcome: outcome, Journal: op, Run: v.run}
	defer func() { v.wire = append(v.wire, ev) }()
	ctx := req.Context()
	if outcome == "timeout" || !v.clock.wait(ctx, v.s.latency(fmt.Sprintf("lookup %d latency", v.lookups), time.Second)) {
		v.clock.wait(ctx, forever)
		return nil, timeout()
	}
	switch outcome {
	case "500":
		return answer(500, nil, `{}`), nil
	case "in-progress":
		return answer(200, nil, `{"resource_id":""}`), nil
	}
	if id, ok := v.resources[key]; ok {
		return answer(200, nil, fmt.Sprintf(`{"resource_id":%q}`, id)), nil
	}
	ev.NotFound = true
	return answer(404, nil, `{}`), nil
}

// apply runs the request on the server: the first request with a key
// creates the resource, later ones find it.
func (v *simServer) apply(key string) {
	if _, ok := v.resources[key]; !ok {
		v.resources[key] = fmt.Sprintf("res_%d", len(v.resources)+1)
	}
}

const forever = 1000 * time.Hour

func timeout() error {
	return fmt.Errorf("simulated: awaiting the answer: %w", context.DeadlineExceeded)
}

func answer(status int, h http.Header, body string) *http.Response {
	if h == nil {
		h = http.Header{}
	}
	return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(strings.NewReader(body))}
}

// simClient is a client wired to the simulated world.
func simClient(v *simServer, p retry.Policy, reconcile bool, rnd retry.Random) retry.Client {
	c := retry.Client{
		Endpoint: retry.Endpoint{
			NewRequest: func(ctx context.Context, key string, payload []byte) (*http.Request, error) {
				req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://sim/resources", strings.NewReader(string(payload)))
				if err != nil {
					return nil, err
				}
				req.Header.Set("Idempotency-Key", key)
				return req, nil
			},
			ResourceID: func(body []byte) string {
				var doc struct{ ID string }
				json.Unmarshal(body, &doc)
				return doc.ID
			},
		},
		Doer:    v,
		Journal: v.journal,
		Policy:  p,
		Clock:   v.clock,
		Random:  rnd,
	}
	if reconcile {
		c.Reconciler = retry.HTTPReconciler{
			Doer: v,
			NewRequest: func(ctx context.Context, op retry.Operation) (*http.Request, error) {
				return http.NewRequestWithContext(ctx, http.MethodGet, "http://sim/keys/"+op.Key, nil)
			},
			Read: readLookup,
		}
	}
	return c
}

// readLookup reads the simulated lookup endpoint: 404 unknown, 200 with
// a resource id found, 200 without one in progress.
func readLookup(status int, body []byte) (retry.Finding, error) {
	switch status {
	case http.StatusNotFound:
		return retry.Finding{Fate: retry.NotFound}, nil
	case http.StatusOK:
		var doc struct {
			ResourceID string `json:"resource_id"`
		}
		if err := json.Unmarshal(body, &doc); err != nil {
			return retry.Finding{}, err
		}
		if doc.ResourceID == "" {
			return retry.Finding{Fate: retry.InProgress}, nil
		}
		return retry.Finding{Fate: retry.Found, ResourceID: doc.ResourceID}, nil
	}
	return retry.Finding{}, errors.New("lookup answered " + http.StatusText(status))
}
