package mcprelay

import (
	"context"
	"net"
	"net/http"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// generation is the agent sessions between two restarts: a restart
// ends them all, as a restarted server would.
type generation struct {
	ctx  context.Context
	stop context.CancelFunc
	http http.Handler
	// cut is closed once the generation's requests are cancelled and its
	// stdio connections closed: a held answer returned after it reaches
	// no agent.
	cut  chan struct{}
	once sync.Once

	mu       sync.Mutex
	conns    map[net.Conn]bool
	sessions map[*sdk.ServerSession]bool
	ended    bool
}

func newGeneration() *generation {
	ctx, stop := context.WithCancel(context.Background())
	return &generation{ctx: ctx, stop: stop, cut: make(chan struct{}), conns: map[net.Conn]bool{}, sessions: map[*sdk.ServerSession]bool{}}
}

// end cuts the generation's transports, then closes its sessions (which
// waits for their handlers: a held one returns once cut is closed).
func (g *generation) end() {
	g.once.Do(func() {
		g.stop()
		g.mu.Lock()
		g.ended = true
		conns, sessions := g.conns, g.sessions
		g.conns, g.sessions = map[net.Conn]bool{}, map[*sdk.ServerSession]bool{}
		g.mu.Unlock()
		for c := range conns {
			c.Close()
		}
		close(g.cut)
		for ss := range sessions {
			ss.Close()
		}
	})
}

// join counts a session that made a call as this generation's.
func (g *generation) join(ss *sdk.ServerSession) {
	if ss == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.ended {
		g.sessions[ss] = true
	}
}

func (g *generation) owns(ss *sdk.ServerSession) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.sessions[ss]
}

// hold counts a stdio connection in g, or closes it if g has ended.
func (g *generation) hold(c net.Conn) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ended {
		c.Close()
		return false
	}
	g.conns[c] = true
	return true
}

func (g *generation) release(c net.Conn) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.conns, c)
}

// acceptStdio serves each relayed stdio connection as one session.
func (r *Relay) acceptStdio() {
	for {
		c, err := r.stdio.Accept()
		if err != nil {
			return
		}
		g := r.current()
		if !g.hold(c) {
			continue
		}
		go func() {
			defer g.release(c)
			ss, err := r.server.Connect(g.ctx, &sdk.IOTransport{Reader: c, Writer: c}, nil)
			if err != nil {
				c.Close()
				return
			}
			g.join(ss)
			ss.Wait()
			c.Close()
		}()
	}
}

// serveHTTP hands a request to the generation's handler; a request cut
// by a restart is cut on the wire too (the connection closes), so the
// agent hears no answer rather than an empty one.
func (r *Relay) serveHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	g := r.gen
	if g.http == nil {
		g.http = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return r.server }, nil)
	}
	h := g.http
	r.mu.Unlock()
	ctx, cancel := context.WithCancel(req.Context())
	defer cancel()
	stop := context.AfterFunc(g.ctx, cancel)
	defer stop()
	h.ServeHTTP(w, req.WithContext(ctx))
	if g.ctx.Err() != nil {
		panic(http.ErrAbortHandler)
	}
}
