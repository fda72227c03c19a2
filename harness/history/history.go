package history

import (
	"sync"
	"time"
)

// Outcome says what the client knows about an attempt.
type Outcome string

const (
	// OK: an HTTP response arrived (any status).
	OK Outcome = "ok"
	// Failed: the request certainly did not reach the server (for
	// instance the connection was refused before a byte was sent).
	Failed Outcome = "failed"
	// MaybeApplied: the request may have been processed but no response
	// arrived (timeout, reset, EOF after the request was written).
	MaybeApplied Outcome = "maybe-applied"
)

// Exchange is one attempt: one request sent once, and what came back.
type Exchange struct {
	Seq     int    `json:"seq"`
	Step    string `json:"step"` // what the scenario meant by it: "first", "retry 2", "burst 7/20"
	Key     string `json:"key,omitempty"`
	Payload string `json:"payload"` // short digest of the exact bytes sent
	Variant string `json:"variant,omitempty"`
	Tenant  string `json:"tenant,omitempty"`
	Lane    string `json:"lane"`
	Fault   string `json:"fault,omitempty"`

	Start    time.Time     `json:"start"`
	Duration time.Duration `json:"duration_ns"`

	Outcome    Outcome           `json:"outcome"`
	Status     int               `json:"status,omitempty"`
	ResourceID string            `json:"resource_id,omitempty"`
	Headers    map[string]string `json:"headers,omitempty"` // the few that checks read
	Body       string            `json:"body,omitempty"`    // truncated, redacted
	Error      string            `json:"error,omitempty"`
	// TimedOut: no answer came before the client gave up (the request's
	// timeout), as against a connection the target closed or reset. A
	// busy or slow target times out; only a dropped connection is the
	// target's answer.
	TimedOut bool `json:"timed_out,omitempty"`
	// Reused: no answer came on a keep-alive connection that had carried
	// an earlier request. A server closes an idle connection when it
	// likes, and its close may cross the request on the way: the drop is
	// not the server's answer to this request (which may or may not have
	// been applied).
	Reused bool `json:"reused_connection,omitempty"`
	// Resent: none of the request left idemspec on the connection it was
	// first given (a reused one the target had closed while it was
	// idle), so it was sent on a new connection: this is that send.
	Resent bool `json:"resent,omitempty"`
	// Stalled: a burst request whose body idemspec held nearly as long
	// as some servers wait for one (harness.StallAfter after its
	// connection opened, on a busy machine): a refusal of it may be the
	// server's read timeout cutting the body, not its answer to the
	// request.
	Stalled bool `json:"body_stalled,omitempty"`
	// Arrival is when the server had the whole request, if the server
	// says so (the fakes do); zero otherwise.
	Arrival time.Time `json:"arrival,omitzero"`
}

// Is2xx reports a successful answer.
func (e Exchange) Is2xx() bool { return e.Outcome == OK && e.Status >= 200 && e.Status < 300 }

// History is an append-only log of exchanges, safe for concurrent use.
type History struct {
	mu        sync.Mutex
	exchanges []Exchange
}

// Add appends e, numbering it, and returns the number.
func (h *History) Add(e Exchange) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	e.Seq = len(h.exchanges) + 1
	h.exchanges = append(h.exchanges, e)
	return e.Seq
}

// Exchanges returns a copy of the log.
func (h *History) Exchanges() []Exchange {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Exchange(nil), h.exchanges...)
}

// Len is the number of attempts recorded.
func (h *History) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.exchanges)
}

// Burst describes one same-key burst: how many requests, and how tightly
// they were released by the harness and (when the server reports arrival
// times) received by the server.
type Burst struct {
	Key   string `json:"key"`
	Size  int    `json:"size"`
	Lane  string `json:"lane"`
	Fault string `json:"fault,omitempty"`
	// Ready counts connections whose server asked for the body (100
	// Continue) before the release; the rest were released on a timer.
	Ready int `json:"ready"`
	// Reopened counts connections the target closed before the release
	// (none of their bodies had left idemspec), opened again.
	Reopened int `json:"reopened,omitempty"`
	// ReleaseSpread is the time between the first and the last request's
	// final write.
	ReleaseSpread time.Duration `json:"release_spread_ns"`
	// ArrivalSpread is max minus min of the server's arrival times, when
	// every answer carried one (ArrivalKnown).
	ArrivalSpread time.Duration `json:"arrival_spread_ns"`
	ArrivalKnown  bool          `json:"arrival_known"`
	Seqs          []int         `json:"seqs"`
}

// Restart is one restart or crash of the target as the harness did it.
type Restart struct {
	Mode string `json:"mode"` // "graceful" (SIGTERM, wait, start) or "crash" (SIGKILL, start)
	// Point says where a stop or crash landed relative to the request
	// in flight.
	Point string `json:"point,omitempty"`
	// Seqs are the exchanges in flight when the target was stopped or
	// killed.
	Seqs []int `json:"seqs,omitempty"`
	// At is when the stop or kill began; Down is how long until the
	// target was healthy again.
	At   time.Time     `json:"at"`
	Down time.Duration `json:"down_ns"`
}
