package mcprelay

import (
	"context"
	"net"
	"net/http"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/idemspec/idemspec/internal/loopback"
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

	conns loopback.Conns

	mu       sync.Mutex
	sessions map[*sdk.ServerSession]bool
	ended    bool
}

func newGeneration() *generation {
	ctx, stop := context.WithCancel(context.Background())
	return &generation{ctx: ctx, stop: stop, cut: make(chan struct{}), sessions: map[*sdk.ServerSession]bool{}}
}

// end cuts the generation's transports, then closes its sessions (which
// waits for their handlers: a held one returns once cut is closed).
func (g *generation) end() {
	g.once.Do(func() {
		g.stop()
		g.mu.Lock()
		g.ended = true
		sessions := g.sessions
		g.sessions = map[*sdk.ServerSession]bool{}
		g.mu.Unlock()
		g.conns.Close()
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

// serveStdio serves a relayed stdio connection as one session of the
// current generation.
func (r *Relay) serveStdio(c net.Conn) {
	g := r.current()
	if !g.conns.Hold(c) {
		return
	}
	defer g.conns.Release(c)
	defer c.Close()
	ss, err := r.server.Connect(g.ctx, &sdk.IOTransport{Reader: c, Writer: c}, nil)
	if err != nil {
		return
	}
	g.join(ss)
	ss.Wait()
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
