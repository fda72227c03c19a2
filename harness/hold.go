package harness

import (
	"errors"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// A lane holds a burst's bodies until the release, so that a burst
// through the lane reaches the target as tight as one sent straight to
// it. A body written at the release would still cross three of the
// proxy's goroutines and two more syscalls before it reached the
// target's socket, which spreads the burst about twice as wide. Instead,
// once every connection is ready, the harness writes each body into the
// proxy, where the link's last step (the write to the target) keeps it;
// when all are held, the harness writes them out to the target's sockets
// itself, in one loop: the bytes are already on the proxy's side of the
// loopback when the release comes, and the release is the loop a burst
// straight to the target makes. Every request still goes through the
// lane, its links and their toxics.

// While the release loop runs, the target's first answers come back,
// and each would wake the proxy's three goroutines on the way down,
// which take the cores from the loop (a burst straight to the target
// wakes nobody: the harness reads its answers after the release). So a
// held connection's reader from the target is paused too: kicked out of
// its read by a deadline in the past, it waits for the release to end
// and reads on. The answers wait in the socket, a millisecond at most.

// answerReader is a connection's read from the target: a link's first
// step in the downstream direction, which a burst may pause.
type answerReader struct {
	net.Conn
	mu     sync.Mutex
	resume chan struct{} // nil: not paused
	parked chan struct{} // closed once the paused reader waits
}

// Read reads from the target. A deadline is only ever set by pause, so
// one that passes means: wait for the resume, then read on.
func (r *answerReader) Read(p []byte) (int, error) {
	for {
		n, err := r.Conn.Read(p)
		if n > 0 || !errors.Is(err, os.ErrDeadlineExceeded) {
			return n, err
		}
		r.mu.Lock()
		resume, parked := r.resume, r.parked
		r.parked = nil
		r.mu.Unlock()
		if parked != nil {
			close(parked)
		}
		if resume != nil {
			<-resume
		}
		r.Conn.SetReadDeadline(time.Time{})
	}
}

// pause stops the reader until the returned function is called;
// parked is closed once the reader waits (and off the cores).
func (r *answerReader) pause() (parked <-chan struct{}, resume func()) {
	ch, p := make(chan struct{}), make(chan struct{})
	r.mu.Lock()
	r.resume, r.parked = ch, p
	r.mu.Unlock()
	r.Conn.SetReadDeadline(time.Unix(1, 0))
	return p, func() {
		r.mu.Lock()
		r.resume, r.parked = nil, nil
		r.mu.Unlock()
		r.Conn.SetReadDeadline(time.Time{})
		close(ch)
	}
}

// upstreamWriter is a connection's write to the target: a link's last
// step in the upstream direction, which a burst may hold.
type upstreamWriter struct {
	*fedConn
	hold    atomic.Pointer[hold]
	answers *answerReader
}

// Write sends p to the target, or keeps it while a hold is armed.
func (w *upstreamWriter) Write(p []byte) (int, error) {
	if h := w.hold.Load(); h != nil && h.keep(p) {
		return len(p), nil
	}
	return w.fedConn.Write(p)
}

// arm makes the writer hold what comes next, until want bytes are held
// and released, and returns the hold.
func (w *upstreamWriter) arm(want int) *hold {
	h := &hold{want: want, conn: w.fedConn.Conn, held: make(chan struct{})}
	w.hold.Store(h)
	return h
}

// hold is the bytes one burst connection's writer keeps.
type hold struct {
	conn net.Conn
	want int
	held chan struct{} // closed once want bytes are held

	mu       sync.Mutex
	buf      []byte
	released bool
}

// keep holds p unless the hold was released (then the writer sends p
// itself, after the held bytes: the lock orders them).
func (h *hold) keep(p []byte) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.released {
		return false
	}
	full := len(h.buf) >= h.want
	h.buf = append(h.buf, p...)
	if !full && len(h.buf) >= h.want {
		close(h.held)
	}
	return true
}

// release writes what is held to the target, whether or not all of it
// came (a burst that ran out of time still sends what it has), and lets
// the writer send the rest itself.
func (h *hold) release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.released {
		return
	}
	h.released = true
	if len(h.buf) > 0 {
		h.conn.Write(h.buf)
	}
}

// holdFor is the writer of the connection the harness opened from
// local, or nil when the feed has none (a connection Toxiproxy copies
// itself, or one whose links have not started).
func (f *feed) holdFor(local string) *upstreamWriter {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.writers[local]
}
