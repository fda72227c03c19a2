package harness

import (
	"github.com/idemspec/idemspec/harness/wire"

	"io"
	"net"
	"sync"
	"time"

	"github.com/Shopify/toxiproxy/v2"
	"github.com/Shopify/toxiproxy/v2/stream"
	"github.com/Shopify/toxiproxy/v2/toxics"
)

// A lane's proxy takes its connections from a feed: the harness's own
// accept loop, which dials the upstream and starts the two Toxiproxy
// links of each connection (the same ToxicCollection.StartLink the
// proxy's own loop calls), so the toxics, their chain and their removal
// are Toxiproxy's. What the feed changes is the copy. A link copies with
// io.Copy between the socket and its channel, and a *net.TCPConn makes
// that copy allocate 32 KiB per direction and per side: 128 KiB per
// proxied connection, held for the connection's life, 128 MB for a burst
// of 1000. The feed hands the links the sockets behind a reader and a
// writer that copy through a growing buffer instead.

// A link's copy starts with linkBufferMin bytes and doubles its buffer
// each time a read fills it, up to linkBufferMax: a request or an
// answer the checks send fits in one read, so a burst's connection holds
// about 4 KiB for its four copies, and a large answer (an oracle's list)
// still moves in big reads.
const (
	linkBufferMin = 1 << 10
	linkBufferMax = 32 << 10
)

// dialUpstream bounds the proxy's dial to the target.
const dialUpstream = 10 * time.Second

// feed is one lane's listener and the connections it has open.
type feed struct {
	server   *toxiproxy.ApiServer
	proxy    *toxiproxy.Proxy
	upstream string
	ln       net.Listener
	// tap, when set, reads the connections to the target (oracle.wire).
	tap *wire.Tap

	// mu is held while the lane's toxics change and while a
	// connection's links start, so a link never starts while its chain
	// is half changed (see startLinks).
	mu    sync.Mutex
	conns map[net.Conn]struct{}
	// writers are the connections' writes to the target, by the
	// client's address, for a burst to hold (hold.go).
	writers map[string]*upstreamWriter
	closed  bool
	done    sync.WaitGroup
}

func newFeed(server *toxiproxy.ApiServer, px *toxiproxy.Proxy, upstream string, tap *wire.Tap) (*feed, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f := &feed{server: server, proxy: px, upstream: upstream, ln: ln, tap: tap, conns: map[net.Conn]struct{}{}, writers: map[string]*upstreamWriter{}}
	// The links label their metrics with Listen: set before the first.
	px.Listen = f.addr()
	f.done.Add(1)
	go f.accept()
	return f, nil
}

func (f *feed) addr() string { return f.ln.Addr().String() }

// accept runs until the listener closes. The upstream is dialled per
// connection, as Toxiproxy does, so a restarted target needs nothing.
func (f *feed) accept() {
	defer f.done.Done()
	for {
		client, err := f.ln.Accept()
		if err != nil {
			return
		}
		upstream, err := net.DialTimeout("tcp", f.upstream, dialUpstream)
		if err != nil {
			client.Close() // the client sees the target's absence, as through Toxiproxy
			continue
		}
		f.startLinks(client, upstream)
	}
}

// startLinks starts the connection's two links. Toxiproxy's link asserts
// that a connection it starts with a reset_peer toxic in its chain is a
// *net.TCPConn (to set SO_LINGER 0, so the reset is a RST), and would
// panic on the feed's reader and writer: such a connection gets its
// sockets as they are (source and destination both), and Toxiproxy's
// own copies.
func (f *feed) startLinks(client, upstream net.Conn) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		client.Close()
		upstream.Close()
		return
	}
	f.conns[client], f.conns[upstream] = struct{}{}, struct{}{}
	name := client.RemoteAddr().String()
	if f.resets() {
		// The feed cannot see these two close: they stay in conns, to
		// be closed again with the feed (a few per run: the connections
		// opened while a reset fault was on).
		f.proxy.Toxics.StartLink(f.server, name+"upstream", client, upstream, stream.Upstream)
		f.proxy.Toxics.StartLink(f.server, name+"downstream", upstream, client, stream.Downstream)
		return
	}
	if f.tap != nil {
		// A connection opened under a reset fault (above) is not read:
		// Toxiproxy needs its own socket there. The wire oracle is weak
		// already; it misses those answers too.
		upstream = f.tap.Conn(upstream)
	}
	w := &upstreamWriter{fedConn: f.closing(upstream), answers: &answerReader{Conn: upstream}}
	w.fedConn.forget = func() { delete(f.writers, name) }
	f.writers[name] = w
	f.proxy.Toxics.StartLink(f.server, name+"upstream", linkReader{client}, linkWriter{w}, stream.Upstream)
	f.proxy.Toxics.StartLink(f.server, name+"downstream", linkReader{w.answers}, linkWriter{f.closing(client)}, stream.Downstream)
}

// resets reports whether a reset_peer toxic is on the lane.
func (f *feed) resets() bool {
	for _, t := range f.proxy.Toxics.GetToxicArray() {
		if w, ok := t.(*toxics.ToxicWrapper); ok && w.Type == "reset_peer" {
			return true
		}
	}
	return false
}

// closing is c, forgotten by the feed once a link closes it.
func (f *feed) closing(c net.Conn) *fedConn { return &fedConn{Conn: c, feed: f} }

// fedConn is a connection the feed keeps until a link closes it.
type fedConn struct {
	net.Conn
	feed *feed
	// forget, if set, is more to forget, under the feed's lock.
	forget func()
}

func (c *fedConn) Close() error {
	c.feed.mu.Lock()
	delete(c.feed.conns, c.Conn)
	if c.forget != nil {
		c.forget()
	}
	c.feed.mu.Unlock()
	return c.Conn.Close()
}

// close stops the listener and closes every connection still open.
func (f *feed) close() {
	f.mu.Lock()
	f.closed = true
	f.ln.Close()
	for c := range f.conns {
		c.Close()
	}
	f.mu.Unlock()
	f.done.Wait()
}

// linkReader is a link's source: io.Copy finds its WriteTo, which
// copies through a growing buffer.
type linkReader struct{ net.Conn }

func (r linkReader) Read(p []byte) (int, error) { return r.Conn.Read(p) }

func (r linkReader) WriteTo(w io.Writer) (int64, error) { return copyGrowing(w, r.Conn) }

// linkWriter is a link's destination: io.Copy finds its ReadFrom, which
// copies through a growing buffer into w.
type linkWriter struct{ w io.WriteCloser }

func (w linkWriter) Write(p []byte) (int, error) { return w.w.Write(p) }

func (w linkWriter) Close() error { return w.w.Close() }

func (w linkWriter) ReadFrom(r io.Reader) (int64, error) { return copyGrowing(w.w, r) }

// copyGrowing is io.Copy through a buffer that starts at linkBufferMin
// bytes and doubles, up to linkBufferMax, after each read that fills it.
func copyGrowing(dst io.Writer, src io.Reader) (int64, error) {
	buf := make([]byte, linkBufferMin)
	var written int64
	for {
		n, err := src.Read(buf)
		if n > 0 {
			m, werr := dst.Write(buf[:n])
			written += int64(m)
			if werr != nil {
				return written, werr
			}
			if m < n {
				return written, io.ErrShortWrite
			}
			if n == len(buf) && len(buf) < linkBufferMax {
				buf = make([]byte, 2*len(buf))
			}
		}
		if err == io.EOF {
			return written, nil
		}
		if err != nil {
			return written, err
		}
	}
}
