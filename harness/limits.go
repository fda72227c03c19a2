package harness

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Limits bound what a run may send to the target's API, so idemspec can be
// pointed at a shared environment. Zero means unlimited. They cover every
// request the suite makes to the target (creates, bursts, oracle reads,
// look-ups, cleanup); not the health probes of a process idemspec manages.
type Limits struct {
	// Budget is the total number of requests the run may send.
	Budget int
	// Rate is how many requests per second the run may start, on average.
	Rate float64
	// Concurrency is how many requests may be in flight at once. A burst
	// needs all its requests in flight together, so it caps the burst size.
	Concurrency int
}

// ErrBudget is the error a request gets once the budget is spent; the
// request is never sent.
var ErrBudget = errors.New("the request budget is spent")

// gate enforces Limits for one run.
type gate struct {
	limits  Limits
	used    atomic.Int64
	refused atomic.Int64
	slots   chan struct{} // nil: no concurrency ceiling

	mu  sync.Mutex
	tat time.Time // when the rate allows the next request (GCRA)
	// capacity is how many requests the rate lets start at once: a burst
	// must be able to go out together.
	capacity int
}

func newGate(l Limits, capacity int) *gate {
	g := &gate{limits: l, capacity: max(capacity, 1)}
	if l.Concurrency > 0 {
		g.slots = make(chan struct{}, l.Concurrency)
	}
	return g
}

// acquire reserves n requests: budget first (all or nothing, so a burst
// is never cut short), then rate, then n concurrency slots. release gives
// the slots back.
func (g *gate) acquire(ctx context.Context, n int) (release func(), err error) {
	if b := int64(g.limits.Budget); b > 0 {
		for {
			used := g.used.Load()
			if used+int64(n) > b {
				g.refused.Add(1)
				return nil, fmt.Errorf("%w (%d of %d used; %d more wanted)", ErrBudget, used, b, n)
			}
			if g.used.CompareAndSwap(used, used+int64(n)) {
				break
			}
		}
	} else {
		g.used.Add(int64(n))
	}
	if err := g.pace(ctx, n); err != nil {
		return nil, err
	}
	held := 0
	release = func() {
		for ; held > 0; held-- {
			<-g.slots
		}
	}
	if g.slots == nil {
		return release, nil
	}
	for held < n {
		select {
		case g.slots <- struct{}{}:
			held++
		case <-ctx.Done():
			release()
			return nil, ctx.Err()
		}
	}
	return release, nil
}

// pace waits until the rate allows n more requests (a generic cell rate
// algorithm whose bucket holds capacity requests).
func (g *gate) pace(ctx context.Context, n int) error {
	if g.limits.Rate <= 0 {
		return nil
	}
	interval := time.Duration(float64(time.Second) / g.limits.Rate)
	g.mu.Lock()
	now := time.Now()
	if g.tat.Before(now) {
		g.tat = now
	}
	start := g.tat.Add(-time.Duration(max(g.capacity-n, 0)) * interval)
	g.tat = g.tat.Add(time.Duration(n) * interval)
	g.mu.Unlock()
	wait := time.Until(start)
	if wait <= 0 {
		return nil
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// gatedTransport passes every request through the gate.
type gatedTransport struct {
	gate *gate
	next http.RoundTripper
}

func (t gatedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	release, err := t.gate.acquire(req.Context(), 1)
	if err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	defer release()
	return t.next.RoundTrip(req)
}

// CloseIdleConnections passes through: a restart must drop the
// keep-alive connections that lead to the old process, or the next POST
// meets a dead one.
func (t gatedTransport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// gated wraps a client's transport (nil: the default one) with the gate.
func (g *gate) gated(c *http.Client) {
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	if gt, ok := next.(gatedTransport); ok {
		next = gt.next
	}
	c.Transport = gatedTransport{gate: g, next: next}
}
