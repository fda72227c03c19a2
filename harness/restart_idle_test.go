package harness_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/history"
)

// drainedRestart is a target's restart that looks, as its stop begins,
// at how many connections the server still has open: a graceful stop
// (Go's Shutdown, for one) waits for a connection whose first request
// has not come, up to its stop timeout. It waits a bounded while for
// the harness's closes to reach the server.
type drainedRestart struct {
	open    *atomic.Int64
	drained *atomic.Bool
}

func (d drainedRestart) Stop() error { return nil }
func (d drainedRestart) Restart(ctx context.Context) error {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if d.open.Load() == 0 {
			d.drained.Store(true)
			return nil
		}
	}
	return nil
}

// TestRestartClosesTheIdleConnectionsFirst: the connections the harness
// keeps alive are closed before the target's stop begins, so none that
// will never carry another request holds a graceful stop.
func TestRestartClosesTheIdleConnectionsFirst(t *testing.T) {
	var open atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte(`{"id":"r1"}`))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			open.Add(1)
		case http.StateClosed, http.StateHijacked:
			open.Add(-1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	env, err := harness.New(fakes.DescribeTarget(srv.URL, "reference"), harness.DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	body, _ := env.Body(env.NewMarker("idle"), "1")
	x := env.Send(context.Background(), &history.History{}, harness.Attempt{Step: "kept alive", Lane: env.Clean, Key: env.NewKey(), Body: body})
	if x.Status != http.StatusCreated {
		t.Fatalf("the request: %s %d %s", x.Outcome, x.Status, x.Error)
	}
	if open.Load() == 0 {
		t.Fatal("the request's connection was not kept alive: the test proves nothing")
	}
	var drained atomic.Bool
	env.Target.Lifecycle = drainedRestart{open: &open, drained: &drained}
	if _, err := env.Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !drained.Load() {
		t.Errorf("the target's stop began with %d connections open: the harness's idle ones were not closed first", open.Load())
	}
}
