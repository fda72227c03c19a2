package harness_test

import (
	"bytes"
	"io"
	"net/http"
	"slices"
	"testing"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/internal/testenv"
)

// TestLaneClientRecordsAndNeverResends: a LaneClient records each request
// as one attempt and sends it once, even a request built the naive way
// (http.NewRequest sets GetBody) on a reused connection that breaks: the
// case where net/http would resend an Idempotency-Key POST by itself.
func TestLaneClientRecordsAndNeverResends(t *testing.T) {
	env, in := newEnv(t)
	h := &history.History{}
	lc := env.Through(env.Clean, h, "client: create")
	body, _ := env.Body(env.NewMarker("through"), "1")
	post := func(key string) (*http.Response, error) {
		req, _ := http.NewRequest(http.MethodPost, env.Target.BaseURL.String()+"/resources", bytes.NewReader(body))
		req.Header.Set("Idempotency-Key", key)
		req.Header.Set("Content-Type", "application/json")
		return lc.Do(req)
	}

	key := env.NewKey()
	resp, err := post(key) // warms a keep-alive connection
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusCreated || len(answer) == 0 {
		t.Fatalf("first send: %d %q", resp.StatusCode, answer)
	}
	x := h.Exchanges()[0]
	if x.Step != "client: create 1 (POST /resources)" || x.Key != key || x.Payload != harness.Digest(body) ||
		x.Lane != "clean" || x.Outcome != history.OK || x.Status != http.StatusCreated || x.ResourceID == "" {
		t.Fatalf("recorded %+v", x)
	}

	remove, err := env.Clean.Apply(harness.ResetPeer{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = post(env.NewKey())
	remove()
	if err == nil {
		t.Fatal("a reset connection gave an answer")
	}
	if x := h.Exchanges()[1]; x.Outcome != history.MaybeApplied || x.Fault != `"reset-peer"` {
		t.Fatalf("recorded %+v, want maybe-applied through reset-peer", x)
	}
	if !slices.Equal(lc.Seqs(), []int{1, 2}) {
		t.Fatalf("Seqs = %v", lc.Seqs())
	}
	testenv.WaitFor(t, "every request of the history reached the server", func() bool { return len(in.Arrivals()) >= h.Len() })
	if got := len(in.Arrivals()); got != h.Len() {
		t.Fatalf("the server saw %d creates for %d attempts: the lane client resent", got, h.Len())
	}
}
