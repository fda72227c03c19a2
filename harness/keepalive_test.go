package harness_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/targets"
)

// A server closes an idle keep-alive connection when its own timeout
// says (Python's http.server often after 1 s), and a request written as
// it closes gets an EOF or a reset: S5b's retry after a 1 s Retry-After
// pause, and the property search's next step, met exactly that against
// a correct server with a 1 s idle timeout. So a connection idle longer
// than targets.IdleReuse is never reused: the request after such a pause
// arrives on a new connection. (With the lane's old 30 s, it came on the
// same one.) An attempt marked Fresh (K2's malformed keys: a drop must
// be the server's answer to that key) always gets a new one.
func TestIdleConnectionsAreNotReusedPastIdleReuse(t *testing.T) {
	var mu sync.Mutex
	var peers []string // the connection each create arrived on
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		peers = append(peers, r.RemoteAddr)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte(`{"id":"r1"}`))
	}))
	defer srv.Close()
	env, err := harness.New(fakes.DescribeTarget(srv.URL, "reference"), harness.DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	body, _ := env.Body(env.NewMarker("idle"), "1")
	h := &history.History{}
	send := func(step string, fresh bool) {
		t.Helper()
		x := env.Send(context.Background(), h, harness.Attempt{Step: step, Lane: env.Clean, Key: env.NewKey(), Body: body, Fresh: fresh})
		if x.Outcome != history.OK || x.Status != http.StatusCreated {
			t.Fatalf("%s: %s %d %s", step, x.Outcome, x.Status, x.Error)
		}
	}
	send("first", false)
	send("straight after", false)
	// The pause is the stimulus (a connection left idle), not a wait.
	time.Sleep(targets.IdleReuse + 100*time.Millisecond)
	send("after a pause", false)
	send("on a fresh connection", true)
	mu.Lock()
	defer mu.Unlock()
	if peers[0] != peers[1] {
		t.Errorf("requests back to back came on two connections (%s, %s): the lane keeps none", peers[0], peers[1])
	}
	if peers[2] == peers[1] {
		t.Errorf("the request after a pause of %s came on the connection idle since (%s): a server with a 1 s idle timeout may be closing it", targets.IdleReuse+100*time.Millisecond, peers[2])
	}
	if peers[3] == peers[2] {
		t.Errorf("an attempt meant for a fresh connection came on the one idle since the last answer (%s)", peers[3])
	}
}
