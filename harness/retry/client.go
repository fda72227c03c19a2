package retry

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/idemspec/idemspec/harness/retry/state"
	"github.com/idemspec/idemspec/internal/uuid"
)

// Doer sends one request, once. An *http.Client is a Doer. The client
// hands it requests without GetBody, so net/http cannot silently resend
// a POST that carries an idempotency key on a broken keep-alive
// connection: every send is one attempt the client counted.
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// Endpoint is the create call an operation makes.
type Endpoint struct {
	// NewRequest builds one attempt: key in the idempotency header,
	// payload as the body, ctx as the request's context.
	NewRequest func(ctx context.Context, key string, payload []byte) (*http.Request, error)
	// ResourceID reads the resource id from a 2xx answer ("" if none).
	ResourceID func(body []byte) string
}

// Client runs operations to a known end. The zero values of Clock,
// Random and NewKey are the real clock, math/rand/v2 and random UUIDs; a
// zero Policy is DefaultPolicy. A Client may run several operations at
// once; it keeps no state of its own beyond the journal.
type Client struct {
	Endpoint Endpoint
	Doer     Doer
	// Reconciler asks the server about an unknown outcome. Nil means the
	// server offers no way to: the client can then only resubmit with
	// the same key and trust the server's deduplication.
	Reconciler Reconciler
	Journal    Journal
	Policy     Policy
	Clock      Clock
	Random     Random
	NewKey     func() string

	bug bug
}

// Result is how one run ended.
type Result struct {
	Operation
	// Sent and Lookups count this run's create requests and look-ups.
	Sent    int `json:"sent"`
	Lookups int `json:"lookups"`
	// Status is the last create answer's status (0: none arrived).
	Status   int       `json:"status,omitempty"`
	Reason   string    `json:"reason"`
	Budget   int       `json:"attempt_budget"`
	Started  time.Time `json:"started"`
	Deadline time.Time `json:"deadline"`
	Ended    time.Time `json:"ended"`
	Events   []Event   `json:"events"`
}

// Event is one step of a run, for logs and reports.
type Event struct {
	At     time.Time     `json:"at"`
	Kind   string        `json:"kind"` // "create", "lookup" or "pause"
	N      int           `json:"n,omitempty"`
	Key    string        `json:"key,omitempty"`
	Class  Class         `json:"class,omitempty"`
	Fate   Fate          `json:"fate,omitempty"`
	Status int           `json:"status,omitempty"`
	Error  string        `json:"error,omitempty"`
	Took   time.Duration `json:"took_ns,omitempty"`
	Pause  time.Duration `json:"pause_ns,omitempty"`
}

// Begin journals a new operation with a fresh key, before anything is
// sent. If the journal already holds id, Begin returns it unchanged (the
// same key), provided the payload is the same bytes.
func (c *Client) Begin(ctx context.Context, id string, payload []byte) (Operation, error) {
	if id == "" {
		return Operation{}, errors.New("an operation needs an id")
	}
	if c.Journal == nil {
		return Operation{}, errors.New("retry.Client has no Journal")
	}
	op := Operation{ID: id, Key: c.newKey(), Payload: payload, State: state.Pending, UpdatedAt: c.clock().Now()}
	stored, err := c.Journal.Create(ctx, op)
	if err != nil {
		return Operation{}, err
	}
	if err := samePayload(stored, payload); err != nil {
		return Operation{}, err
	}
	return stored, nil
}

// Submit is Begin then Run.
func (c *Client) Submit(ctx context.Context, id string, payload []byte) (Result, error) {
	if _, err := c.Begin(ctx, id, payload); err != nil {
		return Result{}, err
	}
	return c.Run(ctx, id)
}

// Run drives the journaled operation id until it succeeds, is refused,
// or this run's budget or deadline is spent, and returns where it ended.
// It resumes whatever an earlier run or process left: an operation found
// SUBMITTING or UNKNOWN_RESULT is reconciled before anything is resent.
// The error is non-nil only when the journal fails, the configuration is
// wrong, or ctx ends (the Result then says where the operation stands).
func (c *Client) Run(ctx context.Context, id string) (Result, error) {
	p, err := c.Policy.withDefaults()
	if err != nil {
		return Result{}, err
	}
	if c.Endpoint.NewRequest == nil || c.Doer == nil || c.Journal == nil {
		return Result{}, errors.New("retry.Client needs an Endpoint.NewRequest, a Doer and a Journal")
	}
	op, err := c.Journal.Load(ctx, id)
	if err != nil {
		return Result{}, err
	}
	r := &runner{c: c, p: p, clock: c.clock(), rnd: c.random(), op: op}
	return r.run(ctx)
}

func (c *Client) clock() Clock {
	if c.Clock == nil {
		return SystemClock{}
	}
	return c.Clock
}

func (c *Client) random() Random {
	if c.Random == nil {
		return systemRandom{}
	}
	return c.Random
}

func (c *Client) newKey() string {
	if c.NewKey != nil {
		return c.NewKey()
	}
	return NewUUID()
}

// NewUUID is a random (version 4) UUID: the key format most servers
// accept, and the only one some accept.
func NewUUID() string { return uuid.New() }
