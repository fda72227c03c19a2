package harness

import (
	"bufio"
	"io"
	"math"
	"net"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/internal/testenv"
)

// upstreamRecorder is a TCP server that sends every byte it reads to a
// channel, and answers each connection with what the test writes to it.
type upstreamRecorder struct {
	ln    net.Listener
	got   chan string
	conns chan net.Conn
}

func newUpstreamRecorder(t *testing.T) *upstreamRecorder {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := &upstreamRecorder{ln: ln, got: make(chan string, 64), conns: make(chan net.Conn, 4)}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u.conns <- c
			go func() {
				buf := make([]byte, 1024)
				for {
					n, err := c.Read(buf)
					if n > 0 {
						u.got <- string(buf[:n])
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	return u
}

// within waits for ch, or fails the test after a bound.
func within[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(testenv.WaitLimit):
		t.Fatalf("timed out waiting for %s", what)
		var zero T
		return zero
	}
}

// laneTo starts a lane in front of u and one client connection through
// it, with the connection's upstream writer (its links started).
func laneTo(t *testing.T, u *upstreamRecorder) (net.Conn, *upstreamWriter, net.Conn) {
	t.Helper()
	p := newProxies()
	t.Cleanup(func() { p.close() })
	l, err := p.lane("clean", u.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", l.Addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.Write([]byte("head "))
	if got := within(t, u.got, "the head"); got != "head " {
		t.Fatalf("upstream read %q, want the head", got)
	}
	w := l.feed.holdFor(c.LocalAddr().String())
	if w == nil {
		t.Fatal("the feed has no writer for the connection")
	}
	return c, w, within(t, u.conns, "the upstream connection")
}

// TestHoldKeepsTheBodyUntilTheRelease: once armed, the bytes the client
// sends stop at the link's last step, all of them, and reach the target
// when released, before anything sent after.
func TestHoldKeepsTheBodyUntilTheRelease(t *testing.T) {
	u := newUpstreamRecorder(t)
	c, w, _ := laneTo(t, u)
	h := w.arm(len("body-of-ten"))
	c.Write([]byte("body-"))
	c.Write([]byte("of-ten"))
	within(t, h.held, "the hold to fill")
	h.mu.Lock()
	held := string(h.buf)
	h.mu.Unlock()
	if held != "body-of-ten" {
		t.Fatalf("held %q, want the whole body", held)
	}
	select {
	case got := <-u.got:
		t.Fatalf("upstream read %q while the body was held", got)
	default:
	}
	h.release()
	c.Write([]byte(" next"))
	var all strings.Builder
	for all.Len() < len("body-of-ten next") {
		all.WriteString(within(t, u.got, "the released body"))
	}
	if all.String() != "body-of-ten next" {
		t.Fatalf("upstream read %q, want the held body, then what followed", all.String())
	}
}

// TestPauseHoldsTheAnswers: a paused reader parks, and the target's
// answer reaches the client only after the resume.
func TestPauseHoldsTheAnswers(t *testing.T) {
	u := newUpstreamRecorder(t)
	c, w, up := laneTo(t, u)
	parked, resume := w.answers.pause()
	within(t, parked, "the reader to park")
	up.Write([]byte("answer"))
	// Absence can only be awaited for a while: a tenth of a second.
	c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if n, err := c.Read(make([]byte, 16)); n > 0 || err == nil {
		t.Fatalf("the client read %d bytes while the answers were paused", n)
	}
	c.SetReadDeadline(time.Time{})
	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(c).ReadString('r')
		got <- line
	}()
	resume()
	if s := within(t, got, "the answer"); s != "answer" {
		t.Fatalf("client read %q, want the answer", s)
	}
}

// TestCopyGrowingGrows: a large answer crosses the link whole, through a
// buffer that grew from linkBufferMin.
func TestCopyGrowingGrows(t *testing.T) {
	big := strings.Repeat("x", 3*linkBufferMax)
	var out strings.Builder
	n, err := copyGrowing(&out, io.MultiReader(strings.NewReader(big)))
	if err != nil || n != int64(len(big)) || out.String() != big {
		t.Fatalf("copied %d bytes (%v), want %d", n, err, len(big))
	}
}

// TestBoundMemory: an Env of large bursts sets a soft memory limit and
// lifts it on close; small bursts and a user's GOMEMLIMIT are left alone.
func TestBoundMemory(t *testing.T) {
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Skipf("GOMEMLIMIT is set (%d): the bound leaves it alone", got)
	}
	boundMemory(20)()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Fatalf("a burst of 20 set a limit: %d", got)
	}
	lift := boundMemory(1000)
	limit := debug.SetMemoryLimit(-1)
	if limit == math.MaxInt64 || limit < 1000*connectionMemory {
		t.Errorf("a burst of 1000 set the limit to %d, want at least %d", limit, 1000*connectionMemory)
	}
	lift()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Fatalf("the limit stayed after the lift: %d", got)
	}
	debug.SetMemoryLimit(1 << 40)
	defer debug.SetMemoryLimit(math.MaxInt64)
	boundMemory(1000)()
	if got := debug.SetMemoryLimit(-1); got != 1<<40 {
		t.Fatalf("a user's limit became %d", got)
	}
}
