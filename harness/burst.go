package harness

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/idemspec/idemspec/harness/history"
)

// MaxBurst bounds a burst's size: every loop that sends is bounded.
const MaxBurst = 2000

// collectFrom is the burst size from which the garbage collector runs
// once, to the end, between the moment every body is held and the
// release: a collection that a large burst's own allocations would start
// mid-release takes a quarter of the cores and stalls the release loop
// (measured: a tight burst of 100 through the lane went from about 1.65
// to about 1.3 times the server's floor). Not below 100: at S4's default
// of 20 it bought no tightness and the share of tight bursts that caught
// a 100 µs race fell from about 90 % to about 75 % (BenchmarkDetection).
const collectFrom = 100

// BurstPatience bounds how long a burst keeps a connection it opened
// waiting for its body. Servers close a connection that sends nothing
// for a while and cut a request whose body does not come in time, and
// some soon: Python's http.server with a handler timeout (often 1 s),
// gunicorn and Node with their request timeouts. A body the server gave
// up on is idemspec's stall, not the server's answer to a duplicate, so
// the waits before the release (the servers asking for the bodies)
// end within half that second of the burst's first connection.
const BurstPatience = 500 * time.Millisecond

// StallAfter is how long a body may wait in all, from its connection's
// opening to its release, before its request is marked Stalled: later
// than the waits allow by half their bound again (a busy machine), close
// enough to the most impatient servers' second that a refusal of it may
// be their read timeout's.
const StallAfter = 3 * BurstPatience / 2

// BurstSpec is one same-key burst.
type BurstSpec struct {
	Step    string
	Lane    *Lane
	Key     string
	Body    []byte
	Variant string
	Size    int
	Timeout time.Duration // for the opening, and again for the answers; zero uses RequestTimeout
	// Spread, when it holds several lanes (one per instance), deals the
	// burst's connections across them in turn: the instances race.
	Spread []*Lane
}

// laneOf is the lane burst request i goes through.
func (s BurstSpec) laneOf(i int) *Lane {
	if len(s.Spread) == 0 {
		return s.Lane
	}
	return s.Spread[i%len(s.Spread)]
}

// burstConn is one burst request on its own connection.
type burstConn struct {
	net.Conn
	lane     *Lane
	hold     *hold // the body, held in the lane's proxy (hold.go)
	r        *bufio.Reader
	opened   time.Time      // when the connection was opened
	ready    bool           // the server asked for the body
	early    *http.Response // a final answer that came before the release
	gone     bool           // the server closed the connection before the release
	released time.Time
	x        history.Exchange
}

// Burst sends Size identical requests so that they arrive together.
//
// Latency only shifts arrivals, and a loose burst (clients started one
// after another) hides check-then-insert races. So: open every connection
// first, send every request's head with "Expect: 100-continue", wait
// until each server handler asks for its body (an event, not a sleep;
// ContinueWait bounds it for servers that never ask), then write all the
// bodies in one tight loop. The release spread and, when the server
// reports arrival times, the arrival spread are recorded.
//
// A server may close a connection, or give up on a body, that waits too
// long: the wait for the servers to ask ends within BurstPatience of the
// first connection, a connection the server closed before the release
// (none of its body had left) is opened again, and a request whose body
// waited longer all the same (a busy machine) is marked Stalled.
func (e *Env) Burst(ctx context.Context, h *history.History, s BurstSpec) (history.Burst, []history.Exchange, error) {
	b := history.Burst{Key: s.Key, Size: s.Size, Lane: s.Lane.Name, Fault: s.Lane.Fault()}
	if len(s.Spread) > 1 {
		names := make([]string, len(s.Spread))
		for i, l := range s.Spread {
			names[i] = l.Name
		}
		b.Lane = strings.Join(names, "+")
	}
	if s.Size < 1 || s.Size > MaxBurst {
		return b, nil, fmt.Errorf("burst size %d is outside 1..%d", s.Size, MaxBurst)
	}
	timeout := s.Timeout
	if timeout == 0 {
		timeout = e.Settings.RequestTimeout
	}
	// The opening (connections, TLS handshakes, heads, the wait for each
	// server to ask for its body) and the answers have a timeout each: on
	// a busy machine twenty TLS handshakes can take most of one, and an
	// answer the opening's slowness cut short would read as a server that
	// never answered.
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	deadline, _ := ctx.Deadline()

	head, body, err := e.splitRequest(ctx, s)
	if err != nil {
		return b, nil, err
	}
	// A burst is in flight all at once: the concurrency ceiling caps its
	// size, and it takes its whole share of the budget up front or none.
	if c := e.Settings.Limits.Concurrency; c > 0 && s.Size > c {
		s.Size = c
	}
	release, err := e.gate.acquire(ctx, s.Size)
	if err != nil {
		return b, nil, fmt.Errorf("burst: %w", err)
	}
	defer release()
	conns := make([]*burstConn, 0, s.Size)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := 0; i < s.Size; i++ {
		c := &burstConn{lane: s.laneOf(i)}
		if err := c.open(ctx, deadline); err != nil {
			return b, nil, fmt.Errorf("burst: open connection %d of %d: %w", i+1, s.Size, err)
		}
		c.x = e.exchange(Attempt{Step: fmt.Sprintf("%s %d/%d", s.Step, i+1, s.Size), Lane: c.lane, Key: s.Key, Body: s.Body, Variant: s.Variant})
		conns = append(conns, c)
	}
	for _, c := range conns {
		if _, err := c.Write(head); err != nil {
			return b, nil, fmt.Errorf("burst: send request head: %w", err)
		}
	}

	// Wait, in parallel, for each server to ask for its body, no longer
	// than the servers' patience allows.
	patienceBy := conns[0].opened.Add(BurstPatience)
	awaitContinue(conns, earliest(time.Now().Add(e.Settings.ContinueWait), patienceBy), deadline)
	// A connection the server closed meanwhile carried none of its body:
	// it is opened again, once, and its head sent again.
	var again []*burstConn
	for _, c := range conns {
		if !c.gone {
			continue
		}
		c.Close()
		if err := c.open(ctx, deadline); err != nil {
			return b, nil, fmt.Errorf("burst: open a connection again: %w", err)
		}
		if _, err := c.Write(head); err != nil {
			return b, nil, fmt.Errorf("burst: send request head: %w", err)
		}
		again = append(again, c)
		b.Reopened++
	}
	awaitContinue(again, earliest(time.Now().Add(e.Settings.ContinueWait), patienceBy), deadline)
	var wg sync.WaitGroup

	resume := holdBodies(ctx, conns, body)
	if s.Size >= collectFrom {
		runtime.GC()
	}
	for _, c := range conns {
		if c.early != nil {
			continue
		}
		c.released = time.Now()
		c.x.Stalled = c.released.Sub(c.opened) > StallAfter
		if c.hold != nil {
			c.hold.release()
		} else {
			c.Write(body)
		}
	}
	resume()

	answerBy := time.Now().Add(timeout)
	for _, c := range conns {
		c.SetDeadline(answerBy)
	}
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.readAnswer(e)
		}()
	}
	wg.Wait()

	var first, last, firstArr, lastArr time.Time
	b.ArrivalKnown = true
	exchanges := make([]history.Exchange, 0, len(conns))
	for _, c := range conns {
		if c.ready {
			b.Ready++
		}
		if !c.released.IsZero() {
			first, last = earliest(first, c.released), latest(last, c.released)
		}
		if c.x.Arrival.IsZero() {
			b.ArrivalKnown = false
		} else {
			firstArr, lastArr = earliest(firstArr, c.x.Arrival), latest(lastArr, c.x.Arrival)
		}
		e.record(h, &c.x)
		b.Seqs = append(b.Seqs, c.x.Seq)
		exchanges = append(exchanges, c.x)
	}
	b.ReleaseSpread = last.Sub(first)
	if b.ArrivalKnown {
		b.ArrivalSpread = lastArr.Sub(firstArr)
	}
	return b, exchanges, nil
}

// holdBodies writes each ready connection's body into its lane's proxy,
// which holds it (hold.go), and waits until every one is held or the
// burst's time is up; the release then sends them from the proxy. A
// lane with a fault keeps its bodies moving (the fault is there to shape
// the burst), and so does a TLS lane (the proxy sees records, not the
// body's bytes) and one with no proxy: their bodies go at the release.
func holdBodies(ctx context.Context, conns []*burstConn, body []byte) (resume func()) {
	var paused []func()
	var parked []<-chan struct{}
	resume = func() {
		for _, r := range paused {
			r()
		}
	}
	for _, c := range conns {
		l := c.lane
		if c.early != nil || l.feed == nil || l.tls != nil || l.Fault() != "" {
			continue
		}
		if w := l.feed.holdFor(c.LocalAddr().String()); w != nil {
			c.hold = w.arm(len(body))
			p, r := w.answers.pause()
			parked, paused = append(parked, p), append(paused, r)
		}
	}
	for _, c := range conns {
		if c.hold != nil {
			c.Write(body)
		}
	}
	for _, c := range conns {
		if c.hold == nil {
			continue
		}
		select {
		case <-c.hold.held:
		case <-ctx.Done():
			return resume // the release sends what each holds
		}
	}
	for _, p := range parked {
		select {
		case <-p:
		case <-ctx.Done():
			return resume
		}
	}
	return resume
}

// splitRequest serialises the create request and splits it into the head
// (with Expect: 100-continue) and the body.
func (e *Env) splitRequest(ctx context.Context, s BurstSpec) (head, body []byte, err error) {
	req, err := e.Target.NewCreate(ctx, s.Key, s.Body)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Expect", "100-continue")
	var buf bytes.Buffer
	if err := req.Write(&buf); err != nil {
		return nil, nil, fmt.Errorf("burst: serialise request: %w", err)
	}
	raw := buf.Bytes()
	i := bytes.Index(raw, []byte("\r\n\r\n"))
	if i < 0 {
		return nil, nil, fmt.Errorf("burst: request has no header end")
	}
	return raw[:i+4], raw[i+4:], nil
}

// open opens the connection to the target through its lane.
func (c *burstConn) open(ctx context.Context, deadline time.Time) error {
	nc, err := c.lane.dialTarget(ctx)
	if err != nil {
		return err
	}
	nc.SetDeadline(deadline)
	c.Conn, c.r, c.opened, c.gone = nc, bufio.NewReaderSize(nc, 1<<10), time.Now(), false
	return nil
}

// awaitContinue waits, in parallel, until each connection's server asks
// for the body, answers early, closes the connection, or continueBy
// passes.
func awaitContinue(conns []*burstConn, continueBy, deadline time.Time) {
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() { c.awaitContinue(continueBy, deadline) })
	}
	wg.Wait()
}

// awaitContinue reads until the server sends 100 Continue, sends a final
// answer early, closes the connection, or continueBy passes.
func (c *burstConn) awaitContinue(continueBy, deadline time.Time) {
	c.SetReadDeadline(continueBy)
	defer c.SetReadDeadline(deadline)
	resp, err := http.ReadResponse(c.r, nil)
	if err != nil {
		// No word from the server yet: it will be released on the timer.
		// Closed without a word (an EOF or a reset, not the timer): the
		// server let the connection go before its body left idemspec.
		c.gone = closedUnder(err)
		return
	}
	if resp.StatusCode == http.StatusContinue {
		c.ready = true
		return
	}
	c.early = resp
}

// readAnswer reads the final answer and fills the exchange.
func (c *burstConn) readAnswer(e *Env) {
	start := c.released
	if start.IsZero() {
		start = time.Now()
	}
	c.x.Start = start
	resp := c.early
	var err error
	for resp == nil || (resp.StatusCode >= 100 && resp.StatusCode < 200) {
		if resp, err = http.ReadResponse(c.r, nil); err != nil {
			c.x.Duration = time.Since(start)
			c.x.Outcome, c.x.Error, c.x.TimedOut = history.MaybeApplied, err.Error(), timedOut(err)
			return
		}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	c.x.Duration = time.Since(start)
	if err != nil {
		c.x.Outcome, c.x.Error, c.x.Status = history.MaybeApplied, "reading the answer: "+err.Error(), resp.StatusCode
		return
	}
	e.fill(&c.x, resp, body)
}

// closedUnder says whether a read failed because the peer closed or
// reset the connection.
func closedUnder(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)
}

func earliest(a, b time.Time) time.Time {
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
}

func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
