package harness

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/idemspec/idemspec/harness/history"
)

// Attempt is one request the scenario wants sent once.
type Attempt struct {
	Step string
	Lane *Lane
	Key  string // "" sends no key
	// Keys, when set, are sent instead of Key: a malformed key that is
	// empty or duplicated (Key is then what the history records).
	Keys    []string
	Body    []byte // the exact bytes; a retry passes the same slice
	Variant string
	// Timeout bounds the attempt; zero uses the Env's default.
	Timeout time.Duration
	// Header adds or overrides request headers for this attempt.
	Header http.Header
	// Query is added to the create path's query string ("name=value").
	Query string
	// Cancel, when closed, abandons the attempt early (the scenario has
	// seen what it waited for, e.g. the oracle shows the commit).
	Cancel <-chan struct{}
	// Wrote, when set, is called (from the transport's goroutine) once
	// the whole request was written: the target has the bytes.
	Wrote func()
	// Answered, when set, is called (from the transport's goroutine) the
	// instant the answer's first byte arrives, before the rest is read.
	Answered func()
	// Fresh sends the attempt on a new connection: a dropped connection
	// is then the server's answer to this request alone, never an idle
	// connection it closed as the request came (K2's malformed keys).
	Fresh bool
	// Pause, when set, spends SendUntil's wait between two attempts, when
	// none of them is in flight (the property search's pool lets a
	// restart in meanwhile). It returns false when the wait was cut
	// short.
	Pause func(ctx context.Context, d time.Duration) bool
}

// headersKept are the answer headers checks read.
var headersKept = append([]string{"Content-Type", "Location", "Retry-After"}, ReplayMarkers...)

// ReplayMarkers are the headers implementations use to mark a replayed
// answer (Stripe's first); K4 reports which one a target sends.
var ReplayMarkers = []string{"Idempotent-Replayed", "Idempotency-Replayed", "X-Idempotent-Replayed", "X-Idempotency-Replayed"}

const bodyKept = 16 << 10

// Send makes one attempt and records it in h. It never retries.
func (e *Env) Send(ctx context.Context, h *history.History, a Attempt) history.Exchange {
	x := e.exchange(a)
	timeout := a.Timeout
	if timeout == 0 {
		timeout = e.Settings.RequestTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if a.Cancel != nil {
		done := ctx.Done()
		go func() {
			select {
			case <-a.Cancel:
				cancel()
			case <-done:
			}
		}()
	}

	req, err := e.Target.NewCreateWith(ctx, a.keys(), a.Body)
	if err != nil {
		x.Outcome, x.Error = history.Failed, err.Error()
		e.record(h, &x)
		return x
	}
	for name, vals := range a.Header {
		req.Header[name] = vals
	}
	if a.Query != "" {
		req.URL.RawQuery = strings.TrimPrefix(req.URL.RawQuery+"&"+a.Query, "&")
	}
	client := a.Lane.client
	if a.Fresh {
		client = a.Lane.fresh
	}
	e.roundTripWith(client, h, &x, a.Lane, req, a.Wrote, a.Answered)
	return x
}

// keys are the key values the attempt sends, in the target's place.
func (a Attempt) keys() []string {
	switch {
	case a.Keys != nil:
		return a.Keys
	case a.Key == "":
		return nil
	}
	return []string{a.Key}
}

// roundTrip sends req once through lane and records it in x and h;
// onWrote, if set, is called once the whole request is written, and
// onAnswer once the answer's first byte arrived. With an
// answer, it returns the response, its body already read (and kept in
// memory for the caller).
func (e *Env) roundTrip(h *history.History, x *history.Exchange, lane *Lane, req *http.Request, onWrote, onAnswer func()) (*http.Response, error) {
	return e.roundTripWith(lane.client, h, x, lane, req, onWrote, onAnswer)
}

// roundTripWith is roundTrip with client, one of the lane's.
func (e *Env) roundTripWith(client *http.Client, h *history.History, x *history.Exchange, lane *Lane, req *http.Request, onWrote, onAnswer func()) (*http.Response, error) {
	// The body is kept, for a send again on a new connection.
	var payload []byte
	if req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			x.Outcome, x.Error = history.Failed, "read the request body: "+err.Error()
			e.record(h, x)
			return nil, err
		}
		payload = b
		req.Body = io.NopCloser(bytes.NewReader(payload))
	}
	x.Start = time.Now()
	t := e.try(client, req, onWrote, onAnswer)
	if t.err != nil && t.unsent() && req.Context().Err() == nil {
		// A request written to a connection the server had closed while
		// it was idle may be lost whole: none of it left idemspec, so it
		// reached no handler, and it goes again on a new connection, as
		// the same attempt.
		again := req.Clone(req.Context())
		if payload != nil {
			again.Body = io.NopCloser(bytes.NewReader(payload))
		}
		x.Resent = true
		t = e.try(lane.fresh, again, onWrote, onAnswer)
	}
	resp, err := t.resp, t.err
	if err != nil {
		x.Duration = time.Since(x.Start)
		x.Outcome, x.Error = classify(err, t.wrote.Load()), err.Error()
		x.TimedOut = timedOut(err)
		x.Reused = t.reused && !t.answered.Load()
		e.record(h, x)
		return nil, err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	x.Duration = time.Since(x.Start)
	if err != nil {
		// Headers arrived but the body did not: the server answered, yet
		// the client cannot know what it said.
		x.Outcome, x.Error = history.MaybeApplied, "reading the answer: "+err.Error()
		x.Status = resp.StatusCode
		e.record(h, x)
		return nil, fmt.Errorf("reading the answer: %w", err)
	}
	e.fill(x, resp, body)
	e.record(h, x)
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

// try is one request on one connection, and what the transport said of
// it.
type try struct {
	resp *http.Response
	err  error
	// wrote: the transport finished writing the request (or failed to);
	// answered: the answer's first byte came.
	wrote, answered atomic.Bool
	// reused: the connection had carried an earlier request; conn and
	// sent say how many bytes it had carried before this one.
	reused bool
	conn   *tallyConn
	sent   int64
}

// unsent says whether the try failed on a reused connection without a
// byte of its request written: the target had closed the connection
// while it was idle, before the request came.
func (t *try) unsent() bool {
	return t.reused && t.conn != nil && t.conn.written.Load() == t.sent && !t.answered.Load()
}

// try sends req once with client.
func (e *Env) try(client *http.Client, req *http.Request, onWrote, onAnswer func()) *try {
	t := &try{}
	// The transport reports the write from its own goroutine.
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) {
			t.reused = info.Reused
			if c, ok := info.Conn.(*tallyConn); ok {
				t.conn, t.sent = c, c.written.Load()
			}
		},
		WroteRequest: func(info httptrace.WroteRequestInfo) {
			t.wrote.Store(true)
			if onWrote != nil && info.Err == nil {
				onWrote()
			}
		},
		GotFirstResponseByte: func() {
			t.answered.Store(true)
			if onAnswer != nil {
				onAnswer()
			}
		},
	}))
	t.resp, t.err = client.Do(req)
	return t
}

// exchange starts the record of an attempt.
func (e *Env) exchange(a Attempt) history.Exchange {
	e.notePayload(Digest(a.Body), a.Body)
	return history.Exchange{
		Step:    a.Step,
		Key:     a.Key,
		Payload: Digest(a.Body),
		Variant: a.Variant,
		Lane:    a.Lane.Name,
		Fault:   a.Lane.Fault(),
	}
}

// fill records an answer.
func (e *Env) fill(x *history.Exchange, resp *http.Response, body []byte) {
	x.Outcome = history.OK
	x.Status = resp.StatusCode
	x.ResourceID = e.Target.ResourceID(body)
	for _, name := range headersKept {
		if v := resp.Header.Get(name); v != "" {
			if x.Headers == nil {
				x.Headers = map[string]string{}
			}
			x.Headers[name] = v
		}
	}
	if ns, err := strconv.ParseInt(resp.Header.Get(ArrivalHeader), 10, 64); err == nil {
		x.Arrival = time.Unix(0, ns)
	}
	if len(body) > bodyKept {
		body = body[:bodyKept]
	}
	x.Body = string(body)
}

// record redacts secrets and appends the exchange.
func (e *Env) record(h *history.History, x *history.Exchange) {
	x.Body = e.Target.Redact(x.Body)
	x.Error = e.Target.Redact(x.Error)
	e.noteID(x.Payload, x.ResourceID)
	x.Seq = h.Add(*x)
}

// ArrivalHeader is the header in which a server may report when it had
// the whole request (Unix nanoseconds); the fakes set it.
const ArrivalHeader = "X-Idemspec-Arrival"

// classify says what a send error means for the request's fate. A
// request never written cannot have been applied; once written, a missing
// answer means it may have been.
func classify(err error, wrote bool) history.Outcome {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return history.Failed
	}
	if !wrote {
		return history.Failed
	}
	return history.MaybeApplied
}

// timedOut says whether err is the client giving up on the answer (a
// request's timeout), not the connection closed or reset under it.
func timedOut(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// Digest is a short fingerprint of a payload for histories.
func Digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:6])
}
