package wire

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A Tap reads a copy of the bytes on connections to the API, requests
// and answers, and records each exchange in a Record as the API gave it:
// before any fault on idemspec's side of the connection dropped the
// answer. It is the wire oracle's view of a run of idemspec itself,
// where the Interposer is client mode's: the lanes' own traffic passes
// it untouched, so a burst keeps its timing.
//
// It never holds a connection up: the bytes go into a bounded backlog
// per direction, and a connection whose backlog overflows stops being
// read (Incomplete says so, and a reading is then an error rather than
// a short count).
type Tap struct {
	ops  []Operation
	base string
	rec  *Record

	mu       sync.Mutex
	streams  map[*tapStream]struct{}
	overflow atomic.Bool
}

// Bounds of a tap's backlog: chunks per direction and connection (a
// chunk is one read or write of the proxy, at most 32 KiB).
const tapBacklog = 1024

// NewTap is a tap for the operations of an API whose paths sit under
// basePath. Its record keeps every body: the wire oracle finds a
// marker in any of them, and the requests are idemspec's own, bounded
// by --budget.
func NewTap(ops []Operation, basePath string) *Tap {
	return &Tap{ops: ops, base: strings.TrimSuffix(basePath, "/"), rec: newRecord(false), streams: map[*tapStream]struct{}{}}
}

// Record is what the tap has read.
func (t *Tap) Record() *Record { return t.rec }

// errTapOverflow is a reading of a tap that could not keep up.
var errTapOverflow = errors.New("the wire record is incomplete: a connection's bytes came faster than idemspec could read them (its backlog overflowed), so a count from it could be short")

// Settle waits until every byte the tap has been given is read (each
// stream's parser waits for more), so that a count taken next includes
// every answer that reached idemspec's side of the lane; ctx bounds it.
// An overflowed tap is an error.
func (t *Tap) Settle(ctx context.Context) error {
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		if t.overflow.Load() {
			return errTapOverflow
		}
		if t.settled() {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the wire record did not settle: %w", context.Cause(ctx))
		case <-tick.C:
		}
	}
}

func (t *Tap) settled() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for s := range t.streams {
		if !s.idle() {
			return false
		}
	}
	return true
}

// Conn is c with its bytes read by the tap: what is written to c is the
// requests, what is read from it the answers.
func (t *Tap) Conn(c net.Conn) net.Conn {
	tc := &tapConn{Conn: c, tap: t, requests: newTapStream(t), answers: newTapStream(t)}
	pending := make(chan *Exchange, tapBacklog)
	go tc.readRequests(pending)
	go tc.readAnswers(pending)
	return tc
}

// tapConn is one tapped connection.
type tapConn struct {
	net.Conn
	tap               *Tap
	requests, answers *tapStream
	closeOnce         sync.Once
}

func (c *tapConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.requests.feed(p[:n])
	return n, err
}

func (c *tapConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.answers.feed(p[:n])
	// A deadline that passed is no end: the lane's answer reader sets
	// one to pause its reading, and reads on after.
	var ne net.Error
	if err != nil && !(errors.As(err, &ne) && ne.Timeout()) {
		c.answers.end()
	}
	return n, err
}

func (c *tapConn) Close() error {
	c.closeOnce.Do(func() {
		c.requests.end()
		c.answers.end()
	})
	return c.Conn.Close()
}

// readRequests parses the requests written to the API, records each,
// and hands it to readAnswers, which pairs the answers in order.
func (c *tapConn) readRequests(pending chan<- *Exchange) {
	defer close(pending)
	defer c.requests.done()
	br := bufio.NewReader(c.requests)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		body, err := io.ReadAll(io.LimitReader(req.Body, MaxBody))
		io.Copy(io.Discard, req.Body)
		req.Body.Close()
		if err != nil {
			return
		}
		body, problem := readable(req.Header, body, "the request")
		x := &Exchange{Method: req.Method, Path: req.URL.Path, Query: req.URL.RawQuery, Header: req.Header, Body: kept(body), Forwarded: true, Start: time.Now(), Problem: problem}
		op, ok := c.tap.operation(req.Method, req.URL.Path)
		if ok {
			x.Operation, x.Kind = op.Name, op.Kind
			payload := body
			if op.KeyOf != nil {
				x.Key, payload, x.KeyFound = op.KeyOf(req, body)
			}
			x.PayloadHash = hash(payload)
		} else {
			x.PayloadHash = hash(body)
		}
		c.tap.rec.add(x)
		pending <- x
	}
}

// readAnswers parses the API's answers, each to the oldest request not
// yet answered, skipping interim ones (100 Continue).
func (c *tapConn) readAnswers(pending <-chan *Exchange) {
	defer c.answers.done()
	br := bufio.NewReader(c.answers)
	for {
		// Waiting for a request to pair is waiting too, as far as
		// Settle is concerned: every answer byte fed is read.
		c.answers.waiting.Store(true)
		x, ok := <-pending
		c.answers.waiting.Store(false)
		if !ok {
			return
		}
		res, err := c.readFinal(br, x.Method)
		if err != nil {
			c.tap.rec.update(x, func(x *Exchange) { x.Problem, x.End, x.Done = "no answer on the wire: "+err.Error(), time.Now(), true })
			for x := range pending {
				c.tap.rec.update(x, func(x *Exchange) { x.Problem, x.End, x.Done = "no answer on the wire", time.Now(), true })
			}
			return
		}
		body, _ := io.ReadAll(io.LimitReader(res.Body, MaxBody))
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		body, problem := readable(res.Header, body, "the API's answer")
		op, _ := c.tap.operation(x.Method, x.Path)
		c.tap.rec.update(x, func(x *Exchange) {
			x.Status, x.AnsweredBy, x.Answer, x.End, x.Done = res.StatusCode, AnsweredByAPI, kept(body), time.Now(), true
			if op.IDOf != nil && x.Committed() {
				x.ResourceID = op.IDOf(body)
			}
			if problem != "" {
				x.Problem = problem
			}
		})
	}
}

// readFinal reads answers until one that is not interim.
func (c *tapConn) readFinal(br *bufio.Reader, method string) (*http.Response, error) {
	for {
		res, err := http.ReadResponse(br, &http.Request{Method: method})
		if err != nil {
			return nil, err
		}
		if res.StatusCode >= 200 || res.StatusCode == http.StatusSwitchingProtocols {
			return res, nil
		}
		res.Body.Close()
	}
}

// operation is the operation a request's method and path match, below
// the API's base path.
func (t *Tap) operation(method, path string) (Operation, bool) {
	return matchUnder(t.ops, t.base, method, path)
}

// tapStream is one direction of a tapped connection: the bytes fed to
// it, read by its parser.
type tapStream struct {
	tap   *Tap
	mu    sync.Mutex
	ch    chan []byte
	ended bool
	buf   []byte
	// fed and took count the chunks fed and taken by the parser;
	// waiting says the parser has used every byte it took and asks for
	// more.
	fed, took atomic.Int64
	waiting   atomic.Bool
	parsing   atomic.Bool // the parser has not ended
}

func newTapStream(t *Tap) *tapStream {
	s := &tapStream{tap: t, ch: make(chan []byte, tapBacklog)}
	s.parsing.Store(true)
	t.mu.Lock()
	t.streams[s] = struct{}{}
	t.mu.Unlock()
	return s
}

// feed hands the parser a copy of p, or, with the backlog full, ends the
// stream and marks the tap incomplete: never blocks the connection.
func (s *tapStream) feed(p []byte) {
	if len(p) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	s.fed.Add(1)
	select {
	case s.ch <- append([]byte(nil), p...):
	default:
		s.fed.Add(-1)
		s.tap.overflow.Store(true)
		s.ended = true
		close(s.ch)
	}
}

// end says no more bytes come.
func (s *tapStream) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ended {
		s.ended = true
		close(s.ch)
	}
}

// done is the parser's end: the stream no longer counts for Settle.
func (s *tapStream) done() {
	s.parsing.Store(false)
	s.tap.mu.Lock()
	delete(s.tap.streams, s)
	s.tap.mu.Unlock()
}

// idle says the parser has read every byte fed so far and waits for more.
func (s *tapStream) idle() bool {
	return !s.parsing.Load() || (s.waiting.Load() && s.took.Load() == s.fed.Load())
}

func (s *tapStream) Read(p []byte) (int, error) {
	if len(s.buf) == 0 {
		s.waiting.Store(true)
		b, ok := <-s.ch
		if !ok {
			return 0, io.EOF
		}
		// Not waiting before taken: Settle never sees a chunk taken and
		// the parser still waiting.
		s.waiting.Store(false)
		s.took.Add(1)
		s.buf = b
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	return n, nil
}
