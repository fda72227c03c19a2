package fakes

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"path"
	"slices"
	"sync"
	"time"

	"github.com/idemspec/idemspec/harness/upstream"
)

// A hold is client mode's failpoint for a step of a multi-step job: the
// next request that matches it stops at the server, which signals the
// harness, and waits for the harness to say what becomes of it. Only
// the server knows which step a request is, so a fault aimed at one
// step of a job (its answer lost, the client killed while it runs, or
// killed before it runs) is aimed here, whatever the timing: the
// harness acts on the signal, never on a timer.

// Hold says which request to stop, and when.
type Hold = upstream.Hold

// Held is an armed hold.
type Held struct {
	server  *Server
	hold    Hold
	arrived chan struct{}
	decided chan bool // true: deliver (or run); false: drop
	// settled is closed once the held request's handler acted on the
	// decision: a drop logged and its connection closed, an answer
	// written, or a request held on arrival sent on to run.
	settled chan struct{}
	once    sync.Once
	// index is the request's place in the log (Requests) once arrived.
	mu    sync.Mutex
	index int
	// request is the held request's context: it ends when the client
	// closes the connection (net/http reads on once the body is read).
	request context.Context
}

// holdCap bounds how long a held request waits for the harness before
// it carries on as if released.
const holdCap = 30 * time.Second

// settleCap bounds how long Release waits for the held request's
// handler to act on the decision.
const settleCap = 10 * time.Second

// Arrived is closed when a request stopped at the hold.
func (h *Held) Arrived() <-chan struct{} { return h.arrived }

// Release lets the held request go on: deliver answers it (or, held on
// arrival, runs it); otherwise the server closes the connection without
// a byte of answer (held on arrival: without running it). Only the
// first call counts; releasing a hold nothing reached disarms it.
//
// Once a request reached the hold, Release returns only after its
// handler acted (at most settleCap): a drop is in the log (Requests,
// Index) and its connection closed when Release returns. Whatever the
// harness does next (start the program again and note where its run
// begins in the log) sees the drop where it happened, not in the run
// after it, however late the handler's goroutine is scheduled.
func (h *Held) Release(deliver bool) {
	h.once.Do(func() {
		if h.server != nil {
			h.server.disarm(h)
		}
		h.decided <- deliver
	})
	select {
	case <-h.arrived:
	default:
		return // nothing reached it: disarmed
	}
	select {
	case <-h.settled:
	case <-time.After(settleCap):
	}
}

// ClientGaveUp says whether the client had closed the held request's
// connection (its own timeout) when asked: a fault the harness lands
// after that lands after the client stopped waiting, not during the
// request, and the harness must not judge it as landed there.
func (h *Held) ClientGaveUp() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.request != nil && h.request.Err() != nil
}

// Index is the held request's place in the log (Requests): for a hold
// after the work, the entry its handler wrote.
func (h *Held) Index() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.index
}

// Hold arms h in the current generation: the next request it matches
// stops there. It answers the interface client mode holds it by.
func (in *Instance) Hold(h Hold) upstream.Held {
	if s := in.current(); s != nil {
		return s.Hold(h)
	}
	return &Held{hold: h, arrived: make(chan struct{}), decided: make(chan bool, 1), settled: make(chan struct{})}
}

// Hold arms h: the next request it matches stops there.
func (s *Server) Hold(h Hold) *Held {
	held := &Held{server: s, hold: h, arrived: make(chan struct{}), decided: make(chan bool, 1), settled: make(chan struct{}), index: -1}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.holds = append(s.holds, held)
	return held
}

// disarm removes h if no request took it yet.
func (s *Server) disarm(h *Held) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.holds = slices.DeleteFunc(s.holds, func(x *Held) bool { return x == h })
}

// takeHold disarms and returns the first hold r matches, or nil.
func (s *Server) takeHold(r *http.Request) *Held {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, h := range s.holds {
		if ok, _ := path.Match(h.hold.Path, r.URL.Path); ok && h.hold.Method == r.Method {
			s.holds = slices.Delete(s.holds, i, i+1)
			return h
		}
	}
	return nil
}

// held is the middleware that stops the requests holds match.
func (s *Server) held(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := s.takeHold(r)
		if h == nil {
			next.ServeHTTP(w, r)
			return
		}
		if !h.hold.After {
			s.holdOnArrival(h, next, w, r)
			return
		}
		s.holdAfterWork(h, next, w, r)
	})
}

// holdOnArrival stops a request before the server does anything: a
// drop logs it as dropped and closes the connection.
func (s *Server) holdOnArrival(h *Held, next http.Handler, w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes))
	r.Body = io.NopCloser(bytes.NewReader(body))
	if !h.wait(r.Context(), func() int { return -1 }) {
		s.mu.Lock()
		h.mu.Lock()
		h.index = len(s.requests)
		h.mu.Unlock()
		s.requests = append(s.requests, Arrival{At: time.Now(), Key: s.steps.key(r, body), Tenant: s.steps.tenant(r), Hash: digest(body), Method: r.Method, Path: r.URL.Path, Dropped: true})
		s.mu.Unlock()
		defer close(h.settled) // hangUp may end the handler by panicking
		hangUp(w)
		return
	}
	close(h.settled) // its entry comes when it ends, as any request's
	next.ServeHTTP(w, r)
}

// holdAfterWork lets the handler do its work into a buffer, stops, and
// then answers or drops the answer.
func (s *Server) holdAfterWork(h *Held, next http.Handler, w http.ResponseWriter, r *http.Request) {
	before := len(s.Requests())
	buf := &bufferedAnswer{header: http.Header{}, status: http.StatusOK}
	next.ServeHTTP(buf, r)
	deliver := h.wait(r.Context(), func() int {
		if log := s.Requests(); len(log) > before {
			return before // the handler's own entry: one client request at a time
		}
		return -1
	})
	defer close(h.settled) // hangUp may end the handler by panicking
	if !deliver {
		hangUp(w)
		return
	}
	for k, v := range buf.header {
		w.Header()[k] = v
	}
	w.WriteHeader(buf.status)
	w.Write(buf.body.Bytes())
}

// wait signals the arrival and waits for the harness's decision (at
// most holdCap, then it delivers).
func (h *Held) wait(request context.Context, index func() int) bool {
	h.mu.Lock()
	h.index = index()
	h.request = request
	h.mu.Unlock()
	close(h.arrived)
	select {
	case deliver := <-h.decided:
		return deliver
	case <-time.After(holdCap):
		return true
	}
}

// hangUp closes the connection without an answer.
func hangUp(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler) // net/http closes the connection
}

// bufferedAnswer keeps an answer until the hold decides.
type bufferedAnswer struct {
	header http.Header
	status int
	body   bytes.Buffer
	wrote  bool
}

func (b *bufferedAnswer) Header() http.Header { return b.header }
func (b *bufferedAnswer) WriteHeader(status int) {
	if !b.wrote {
		b.status, b.wrote = status, true
	}
}
func (b *bufferedAnswer) Write(p []byte) (int, error) {
	b.WriteHeader(http.StatusOK)
	return b.body.Write(p)
}
