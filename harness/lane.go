package harness

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/Shopify/toxiproxy/v2"

	"github.com/idemspec/idemspec/targets"
)

// Lane is one proxy in front of the target. A scenario sends each request
// through the lane its step asks for, so a fault hits exactly the requests
// meant to see it even though Toxiproxy works on whole connections.
type Lane struct {
	Name     string
	Addr     string // the proxy's loopback address
	Upstream string

	proxy  *toxiproxy.Proxy
	feed   *feed // the proxy's accept loop (nil for a direct lane)
	client *http.Client
	// fresh opens a connection for every request: a request that never
	// left idemspec because the target had closed the idle connection it
	// was given is sent again on one (send.go).
	fresh *http.Client
	// tls is set for an https:// target: connections through the lane
	// carry TLS end to end, with the real host's name (SNI, certificate).
	tls *tls.Config
	// warmed holds one connection whose TLS handshake finished before a
	// fault was added: a toxic on a fresh TLS connection would break the
	// handshake, and the request would never be written at all.
	warmed chan net.Conn

	mu     sync.Mutex
	faults []string
}

var toxicSeq atomic.Int64

// Apply adds a fault's toxics to the lane. The returned function removes
// them; callers register it as a cleanup in the same place.
func (l *Lane) Apply(f Fault) (remove func(), err error) {
	if l.proxy == nil {
		return func() {}, errNoProxy(l, f)
	}
	if err := l.warm(); err != nil {
		return func() {}, fmt.Errorf("apply %s to the %s lane: warm a TLS connection: %w", f.Name(), l.Name, err)
	}
	// No connection's links start while the chain changes (feed.go).
	l.feed.mu.Lock()
	defer l.feed.mu.Unlock()
	var names []string
	remove = func() {
		for _, n := range names {
			// Removing a timeout toxic closes the connections it held.
			l.proxy.Toxics.RemoveToxic(context.Background(), n)
		}
		l.mu.Lock()
		for i, name := range l.faults {
			if name == f.Name() {
				l.faults = append(l.faults[:i], l.faults[i+1:]...)
				break
			}
		}
		l.mu.Unlock()
	}
	for _, t := range f.toxics() {
		name := fmt.Sprintf("%s-%s-%d", l.Name, t.Type, toxicSeq.Add(1))
		spec, _ := json.Marshal(map[string]any{
			"name": name, "type": t.Type, "stream": t.Stream, "toxicity": 1.0, "attributes": t.Attributes,
		})
		if _, err := l.proxy.Toxics.AddToxicJson(bytes.NewReader(spec)); err != nil {
			remove()
			return func() {}, fmt.Errorf("apply %s to the %s lane: %w", f.Name(), l.Name, err)
		}
		names = append(names, name)
	}
	l.mu.Lock()
	l.faults = append(l.faults, f.Name())
	l.mu.Unlock()
	return remove, nil
}

// Fault names the faults currently on the lane, for the history.
func (l *Lane) Fault() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.faults) == 0 {
		return ""
	}
	b, _ := json.Marshal(l.faults)
	return string(bytes.Trim(b, "[]"))
}

// HTTPClient is the lane as an HTTP client, for a protocol client that
// builds its own requests (the MCP SDK's streamable transport). Requests
// pass the run's gate like every other; they are not recorded in a
// History, so the caller records what it sent.
func (l *Lane) HTTPClient() *http.Client { return l.client }

// dial opens a connection to the lane, whatever address the caller asked
// for: requests keep the target's real URL (Host header, TLS name) and
// only the TCP connection is redirected through the proxy.
func (l *Lane) dial(ctx context.Context) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "tcp", l.Addr)
}

// dialTarget opens a connection to the target through the lane: plain
// TCP for http://, TLS for https:// (a warmed connection first, if one
// waits).
func (l *Lane) dialTarget(ctx context.Context) (net.Conn, error) {
	if l.tls == nil {
		return l.dial(ctx)
	}
	select {
	case c := <-l.warmed:
		return c, nil
	default:
	}
	nc, err := l.dial(ctx)
	if err != nil {
		return nil, err
	}
	tc := tls.Client(nc, l.tls)
	if err := tc.HandshakeContext(ctx); err != nil {
		nc.Close()
		return nil, err
	}
	return tc, nil
}

// warm makes sure a TLS lane has one handshaken connection waiting.
func (l *Lane) warm() error {
	if l.tls == nil {
		return nil
	}
	select {
	case c := <-l.warmed:
		c.Close() // a stale one: its peer may have gone
	default:
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := l.dialTarget(ctx)
	if err != nil {
		return err
	}
	l.warmed <- c
	return nil
}

// setClients gives the lane its HTTP clients: one that keeps idle
// connections (with reuse) or not, and one that never does.
func (l *Lane) setClients(reuse bool) {
	l.client, l.fresh = newLaneClient(l, reuse), newLaneClient(l, false)
}

// newLaneClient builds the lane's HTTP client. It never follows
// redirects, has no timeout of its own (each attempt's context has one)
// and, with reuse off, never sends on a connection a previous fault left
// half-broken. With reuse, an idle connection is reused only within
// targets.IdleReuse: the target may close one idle for longer.
func newLaneClient(l *Lane, reuse bool) *http.Client {
	tr := &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			c, err := l.dial(ctx)
			if err != nil {
				return nil, err
			}
			return &tallyConn{Conn: c}, nil
		},
		DialTLSContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			c, err := l.dialTarget(ctx)
			if err != nil {
				return nil, err
			}
			return &tallyConn{Conn: c}, nil
		},
		DisableCompression:    true,
		MaxIdleConnsPerHost:   8,
		IdleConnTimeout:       targets.IdleReuse,
		ResponseHeaderTimeout: 0,
	}
	if !reuse {
		// -1 never keeps a connection idle, without the Connection: close
		// header that DisableKeepAlives would add to the request.
		tr.MaxIdleConnsPerHost = -1
	}
	return &http.Client{
		Transport: tr,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// tallyConn counts the bytes written on a client connection, so that a
// request that failed on a reused connection can tell whether any of it
// left idemspec (send.go).
type tallyConn struct {
	net.Conn
	written atomic.Int64
}

func (c *tallyConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.written.Add(int64(n))
	return n, err
}
