package harness_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/history"
)

// impatientServer is shaped like Python's http.server with a handler
// timeout: a thread per connection, and every read bounded by patience.
// It asks for the body (100 Continue) as soon as it has the head, except
// on the connection numbered mute (a handler that is late to ask); a
// body that does not come within patience is answered 400 ("cut short"),
// as such a server answers what it could not read. The connection
// numbered drop is closed right after its head, unanswered, as a server
// that let it go. Connections are numbered from 1 in accept order.
type impatientServer struct {
	ln         net.Listener
	patience   time.Duration
	mute, drop int64
	n          atomic.Int64
	created    atomic.Int64
}

func newImpatientServer(t *testing.T, patience time.Duration, mute, drop int64) *impatientServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &impatientServer{ln: ln, patience: patience, mute: mute, drop: drop}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(c, s.n.Add(1))
		}
	}()
	return s
}

func (s *impatientServer) serve(c net.Conn, n int64) {
	defer c.Close()
	br := bufio.NewReader(c)
	c.SetReadDeadline(time.Now().Add(s.patience))
	req, err := http.ReadRequest(br)
	if err != nil || n == s.drop {
		return
	}
	if n != s.mute && strings.EqualFold(req.Header.Get("Expect"), "100-continue") {
		io.WriteString(c, "HTTP/1.1 100 Continue\r\n\r\n")
	}
	c.SetReadDeadline(time.Now().Add(s.patience))
	status, answer := http.StatusCreated, `{"id":"r1"}`
	if _, err := io.ReadAll(req.Body); err != nil {
		status, answer = http.StatusBadRequest, `{"error":"the body was cut short"}`
	} else {
		s.created.Add(1)
	}
	fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		status, http.StatusText(status), len(answer), answer)
}

// A burst must release before a server's patience runs out: one handler
// late to ask for its body must not keep the others' bodies past the
// server's read timeout (they would be cut, and answered 400: idemspec's
// stall, not the server's answer), and a connection the server let go
// before the release is opened again. Here ContinueWait (2 s) is longer
// than the server's 1 s: the burst holds no body past BurstPatience
// (0.5 s) of its first connection all the same. Before, the bodies went
// after 2 s, and every one was cut.
func TestBurstReleasesWithinTheServersPatience(t *testing.T) {
	for _, tc := range []struct {
		name       string
		mute, drop int64
		reopened   int
	}{
		{name: "a handler late to ask", mute: 2},
		{name: "a connection let go before the release", drop: 1, reopened: 1},
	} {
		for _, proxied := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/proxied=%t", tc.name, proxied), func(t *testing.T) {
				t.Parallel()
				srv := newImpatientServer(t, time.Second, tc.mute, tc.drop)
				s := harness.DefaultSettings()
				s.ContinueWait = 2 * time.Second
				env, err := harness.New(fakes.DescribeTarget("http://"+srv.ln.Addr().String(), "reference"), s)
				if err != nil {
					t.Fatal(err)
				}
				defer env.Close()
				lane := harness.DirectLane(srv.ln.Addr().String())
				if proxied {
					lane = env.Clean
				}
				body, _ := env.Body(env.NewMarker("patience"), "1")
				b, sends, err := env.Burst(context.Background(), &history.History{}, harness.BurstSpec{
					Step: "burst", Lane: lane, Key: env.NewKey(), Body: body, Size: 3})
				if err != nil {
					t.Fatal(err)
				}
				for _, x := range sends {
					if x.Outcome != history.OK || x.Status != http.StatusCreated || x.Stalled {
						t.Errorf("%s: %s %d %s (stalled %t), want a 201 answer", x.Step, x.Outcome, x.Status, x.Error, x.Stalled)
					}
				}
				if b.Reopened != tc.reopened {
					t.Errorf("%d connections opened again, want %d", b.Reopened, tc.reopened)
				}
				if got := srv.created.Load(); got != 3 {
					t.Errorf("the server read %d whole bodies, want 3", got)
				}
			})
		}
	}
}
