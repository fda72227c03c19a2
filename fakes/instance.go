package fakes

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idemspec/idemspec/fakes/mutant"
	"github.com/idemspec/idemspec/internal/freeport"
)

// Instance is a fake server listening on a loopback port. It can be
// restarted gracefully and crashed; either way it comes back on the same
// port with the same database file, as a restarted process would.
type Instance struct {
	URL  string // http://127.0.0.1:PORT
	Addr string // 127.0.0.1:PORT

	opts   Options // DBPath always set: it outlives every generation
	tmpDir string  // the database's directory when Start made it

	// port is the listening socket every generation serves on. It stays
	// bound from Start to Close: between a crash and the restart another
	// program could bind a port let go, even one drawn outside the
	// ephemeral range (another idemspec drawing its own, as two suites
	// on one machine do), and the restart would fail. A connection that
	// arrives in between waits in the backlog for the next generation,
	// as it would behind a socket-activated service.
	port *net.TCPListener

	mu  sync.Mutex
	gen *generation
}

// generation is one life of the server, from start to stop or kill.
type generation struct {
	*Server
	http *http.Server
	done chan error
}

// Start opens a fake and serves it on addr. Port 0 picks a port outside
// the kernel's ephemeral range: a restart binds the same port again, and
// one the kernel hands out could be taken by another program meanwhile.
func Start(opts Options, addr string) (*Instance, error) {
	if host, port, err := net.SplitHostPort(addr); err == nil && port == "0" {
		p, err := freeport.Pick()
		if err != nil {
			return nil, err
		}
		addr = net.JoinHostPort(host, strconv.Itoa(p))
	}
	in := &Instance{opts: opts}
	if opts.DBPath == "" {
		dir, err := os.MkdirTemp("", "idemspec-fake-")
		if err != nil {
			return nil, err
		}
		in.tmpDir = dir
		in.opts.DBPath = filepath.Join(dir, "fake.db")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		in.removeTemp()
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	in.port = ln.(*net.TCPListener)
	gen, err := serve(in.opts, in.port)
	if err != nil {
		in.port.Close()
		in.removeTemp()
		return nil, err
	}
	in.gen = gen
	in.Addr = gen.addr()
	in.URL = "http://" + in.Addr
	return in, nil
}

func serve(opts Options, port *net.TCPListener) (*generation, error) {
	s, err := Open(opts)
	if err != nil {
		return nil, err
	}
	if err := port.SetDeadline(time.Time{}); err != nil {
		s.Close()
		return nil, err
	}
	g := &generation{
		Server: s,
		http:   &http.Server{Addr: port.Addr().String(), Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second},
		done:   make(chan error, 1),
	}
	if d := opts.IdleTimeout; d > 0 {
		// One timer per wait, as a socket timeout is: for the next
		// request, for its head, for its whole body.
		g.http.IdleTimeout, g.http.ReadHeaderTimeout, g.http.ReadTimeout = d, min(d, g.http.ReadHeaderTimeout), d
	}
	go func() { g.done <- g.http.Serve(&lease{TCPListener: port}) }()
	return g, nil
}

// lease is one generation's use of the instance's listening socket:
// closing it ends that generation's accepting and leaves the socket bound
// for the next one.
type lease struct {
	*net.TCPListener
	closed atomic.Bool
}

func (l *lease) Accept() (net.Conn, error) {
	if l.closed.Load() {
		return nil, net.ErrClosed
	}
	c, err := l.TCPListener.Accept()
	if l.closed.Load() {
		// A connection accepted as the generation ended belongs to no
		// one: closing it is what a dead process's socket does.
		if c != nil {
			c.Close()
		}
		return nil, net.ErrClosed
	}
	return c, err
}

// Close wakes the Accept in progress (the deadline passes) without
// unbinding the socket.
func (l *lease) Close() error {
	if l.closed.Swap(true) {
		return nil
	}
	return l.TCPListener.SetDeadline(time.Unix(1, 0))
}

func (g *generation) addr() string { return g.http.Addr }

// stop is a graceful shutdown: requests in flight finish (for a while),
// and nothing else runs from the moment it begins. Without draining
// (Options.NoDrain) it is the exit of a process with no SIGTERM handler,
// which finishes nothing: a crash.
func (g *generation) stop() error {
	if g.opts.NoDrain {
		return g.crash()
	}
	g.stopping.Store(true)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := g.http.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = g.http.Close()
	}
	if serveErr := <-g.done; !errors.Is(serveErr, http.ErrServerClosed) {
		err = errors.Join(err, serveErr)
	}
	return errors.Join(err, g.Server.Close())
}

// crash is the in-process SIGKILL: no more writes, the listener and every
// connection closed at once, nothing finished. Handlers still running
// (asleep in their work) answer nobody and write nothing.
func (g *generation) crash() error {
	g.kill()
	err := g.http.Close()
	g.release()
	if serveErr := <-g.done; !errors.Is(serveErr, http.ErrServerClosed) {
		err = errors.Join(err, serveErr)
	}
	return errors.Join(err, g.Server.Close())
}

// Restart stops the server gracefully (requests in flight finish) and
// starts it again on the same port and database.
func (in *Instance) Restart(ctx context.Context) error {
	return in.replace(ctx, (*generation).stop)
}

// Crash kills the server (in flight requests die mid-work and never
// answer) and starts it again on the same port and database.
func (in *Instance) Crash(ctx context.Context) error {
	return in.replace(ctx, (*generation).crash)
}

func (in *Instance) replace(ctx context.Context, end func(*generation) error) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.gen == nil {
		return errors.New("the fake is stopped")
	}
	err := end(in.gen)
	in.gen = nil
	if err := ctx.Err(); err != nil {
		return err
	}
	gen, serr := serve(in.opts, in.port)
	if serr != nil {
		return errors.Join(err, fmt.Errorf("start again: %w", serr))
	}
	in.gen = gen
	return nil
}

// Stop is Close, so an Instance can be a target lifecycle.
func (in *Instance) Stop() error { return in.Close() }

// Close stops serving, waiting briefly for requests in flight, closes the
// database and removes a database Start created.
func (in *Instance) Close() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	var err error
	if in.gen != nil {
		err = in.gen.stop()
		in.gen = nil
	}
	if in.port != nil {
		in.port.Close()
	}
	in.removeTemp()
	return err
}

func (in *Instance) removeTemp() {
	if in.tmpDir != "" {
		os.RemoveAll(in.tmpDir)
	}
}

// current is the live generation's server (nil once stopped).
func (in *Instance) current() *Server {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.gen == nil {
		return nil
	}
	return in.gen.Server
}

// Arrivals returns every create request the current generation received.
func (in *Instance) Arrivals() []Arrival {
	if s := in.current(); s != nil {
		return s.Arrivals()
	}
	return nil
}

// Requests returns every create and look-up the current generation
// received (see Server.Requests).
func (in *Instance) Requests() []Arrival {
	if s := in.current(); s != nil {
		return s.Requests()
	}
	return nil
}

// FailNext makes the current generation fail its next n creates (see
// Server.FailNext).
func (in *Instance) FailNext(n, status int) {
	if s := in.current(); s != nil {
		s.FailNext(n, status)
	}
}

// CrashPoint arms a crash point in the current generation (see
// Server.CrashPoint).
func (in *Instance) CrashPoint(key string) <-chan struct{} {
	if s := in.current(); s != nil {
		return s.CrashPoint(key)
	}
	return make(chan struct{})
}

// Mutant says which server this is.
func (in *Instance) Mutant() mutant.Mutant {
	m, _ := LookupMutant(OfServer, in.opts.Mutant)
	return m
}

// InProgressTimeout is how long an abandoned in-flight claim blocks its key.
func (in *Instance) InProgressTimeout() time.Duration {
	if in.opts.InProgressTimeout == 0 {
		return DefaultInProgressTimeout
	}
	return in.opts.InProgressTimeout
}

// DBPath is the database file every generation opens.
func (in *Instance) DBPath() string { return in.opts.DBPath }
