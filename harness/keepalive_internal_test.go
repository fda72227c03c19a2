package harness

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"sync/atomic"
	"testing"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/harness/history"
)

// closedIdle is a transport whose every request gets a reused
// connection that the server has closed: none of the request leaves
// (unsent), or some of it does before the EOF.
type closedIdle struct{ sent []byte }

func (c closedIdle) RoundTrip(req *http.Request) (*http.Response, error) {
	client, server := net.Pipe()
	defer server.Close()
	conn := &tallyConn{Conn: client}
	if trace := httptrace.ContextClientTrace(req.Context()); trace != nil && trace.GotConn != nil {
		trace.GotConn(httptrace.GotConnInfo{Conn: conn, Reused: true, WasIdle: true})
	}
	if len(c.sent) > 0 {
		go io.Copy(io.Discard, server)
		conn.Write(c.sent)
		if trace := httptrace.ContextClientTrace(req.Context()); trace != nil && trace.WroteRequest != nil {
			trace.WroteRequest(httptrace.WroteRequestInfo{})
		}
	}
	return nil, io.EOF
}

// A request given a reused connection the server had closed while it was
// idle either left idemspec or did not. If none of it did, it reached no
// handler: it is sent again on a new connection, as the same attempt,
// and its answer counts. If some of it did, the server may have run it:
// maybe applied, and marked Reused, so no check takes the drop for the
// server's answer.
func TestARequestLostOnAClosedIdleConnection(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sent    []byte
		outcome history.Outcome
		resent  bool
		reused  bool
		arrived int64
	}{
		{name: "none of it left", outcome: history.OK, resent: true, arrived: 1},
		{name: "some of it left", sent: []byte("POST /resources HTTP/1.1\r\n"), outcome: history.MaybeApplied, reused: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var arrived atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				arrived.Add(1)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusCreated)
				w.Write([]byte(`{"id":"r1"}`))
			}))
			defer srv.Close()
			env, err := New(fakes.DescribeTarget(srv.URL, "reference"), DefaultSettings())
			if err != nil {
				t.Fatal(err)
			}
			defer env.Close()
			env.Clean.client = &http.Client{Transport: closedIdle{sent: tc.sent}}
			body, _ := env.Body(env.NewMarker("closed-idle"), "1")
			h := &history.History{}
			x := env.Send(context.Background(), h, Attempt{Step: "create", Lane: env.Clean, Key: env.NewKey(), Body: body})
			if x.Outcome != tc.outcome || x.Resent != tc.resent || x.Reused != tc.reused {
				t.Errorf("outcome %s, resent %t, reused %t (%s); want %s, %t, %t", x.Outcome, x.Resent, x.Reused, x.Error, tc.outcome, tc.resent, tc.reused)
			}
			if tc.outcome == history.OK && x.Status != http.StatusCreated {
				t.Errorf("status %d, want the new connection's 201", x.Status)
			}
			if got := arrived.Load(); got != tc.arrived {
				t.Errorf("the server ran %d creates, want %d", got, tc.arrived)
			}
			if n := h.Len(); n != 1 {
				t.Errorf("%d exchanges recorded, want the one attempt", n)
			}
		})
	}
}
