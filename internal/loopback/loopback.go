// Package loopback is where client mode serves an MCP server to an agent
// (the reference side, or the relay to a real server): a listener for
// the stdio relay an agent starts (`idemspec serve --mcp --relay ADDR`)
// and a streamable HTTP endpoint, both on 127.0.0.1; and the stdio
// connections of one generation of sessions, closed together when a
// restart ends it.
package loopback

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"
)

// Endpoints are the two ways an agent reaches the server.
type Endpoints struct {
	stdio net.Listener
	hs    *http.Server
	url   string
}

// Listen serves each stdio relay connection with serve (in a goroutine
// of its own) and HTTP with h, until Close.
func Listen(serve func(net.Conn), h http.Handler) (*Endpoints, error) {
	stdio, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		stdio.Close()
		return nil, err
	}
	e := &Endpoints{stdio: stdio, url: "http://" + ln.Addr().String() + "/mcp",
		hs: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}}
	go e.hs.Serve(ln)
	go func() {
		for {
			c, err := stdio.Accept()
			if err != nil {
				return
			}
			go serve(c)
		}
	}()
	return e, nil
}

// StdioAddr is the relay listener's host:port.
func (e *Endpoints) StdioAddr() string { return e.stdio.Addr().String() }

// URL is the streamable HTTP endpoint.
func (e *Endpoints) URL() string { return e.url }

// Close stops listening; HTTP requests under way get a bounded grace.
func (e *Endpoints) Close() {
	e.stdio.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	e.hs.Shutdown(ctx)
}

// Conns are one generation's stdio connections. The zero value is ready.
type Conns struct {
	mu     sync.Mutex
	conns  map[net.Conn]bool
	closed bool
}

// Hold counts c in, or closes it if the generation has ended.
func (cs *Conns) Hold(c net.Conn) bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.closed {
		c.Close()
		return false
	}
	if cs.conns == nil {
		cs.conns = map[net.Conn]bool{}
	}
	cs.conns[c] = true
	return true
}

// Release forgets c (it closed by itself).
func (cs *Conns) Release(c net.Conn) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	delete(cs.conns, c)
}

// Close closes every connection held and refuses the next.
func (cs *Conns) Close() {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.closed = true
	for c := range cs.conns {
		c.Close()
	}
	cs.conns = nil
}
