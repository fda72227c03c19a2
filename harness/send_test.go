package harness_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/internal/testenv"
)

// newEnv starts a reference fake and a harness in front of it.
func newEnv(t *testing.T) (*harness.Env, *fakes.Instance) {
	t.Helper()
	in, err := fakes.Start(fakes.Options{}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close() })
	target := fakes.DescribeTarget(in.URL, "reference")
	s := harness.DefaultSettings()
	s.RequestTimeout = 3 * time.Second
	env, err := harness.New(target, s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	return env, in
}

// sendWithDefaultTransport is what a naive harness would do: a request
// built by http.NewRequest (GetBody set) on a pooled connection.
func sendWithDefaultTransport(client *http.Client, url, key string, body []byte) {
	req, _ := http.NewRequest(http.MethodPost, url+"/resources", bytes.NewReader(body))
	req.Header.Set("Idempotency-Key", key)
	req.Header.Set("Content-Type", "application/json")
	if resp, err := client.Do(req); err == nil {
		io.Copy(io.Discard, resp.Body) // drained, so the connection is pooled
		resp.Body.Close()
	}
}

// TestHarnessNeverDuplicates proves the harness does not create the
// duplicates it tests for: with the answer reset or lost on a reused
// keep-alive connection, the server sees exactly one request per
// attempt in the history.
func TestHarnessNeverDuplicates(t *testing.T) {
	env, in := newEnv(t)
	ctx := context.Background()
	h := &history.History{}
	for i, fault := range []harness.Fault{harness.ResetPeer{}, harness.ResetPeer{}, harness.ResponseLoss{}} {
		marker := env.NewMarker("dup")
		body, _ := env.Body(marker, "1")
		key := env.NewKey()
		// Warm a keep-alive connection, then fault the lane it lives on.
		warm := env.Send(ctx, h, harness.Attempt{Step: "warm", Lane: env.Clean, Key: env.NewKey(), Body: body})
		if warm.Status != http.StatusCreated {
			t.Fatalf("round %d: warm-up got %d %s", i, warm.Status, warm.Error)
		}
		remove, err := env.Clean.Apply(fault)
		if err != nil {
			t.Fatal(err)
		}
		a := harness.Attempt{Step: "faulted", Lane: env.Clean, Key: key, Body: body, Timeout: 300 * time.Millisecond}
		x := env.Send(ctx, h, a)
		remove()
		if x.Outcome != history.MaybeApplied {
			t.Fatalf("round %d (%s): outcome %s (%s), want maybe-applied", i, fault.Name(), x.Outcome, x.Error)
		}
		// A reset is the connection dropped under the request; a lost
		// answer leaves the client waiting until it gives up.
		if _, lost := fault.(harness.ResponseLoss); x.TimedOut != lost {
			t.Fatalf("round %d (%s): timed out %t (%s), want %t", i, fault.Name(), x.TimedOut, x.Error, lost)
		}
	}
	// A lost answer leaves the handler running until its commit.
	testenv.WaitFor(t, "every request of the history reached the server", func() bool { return len(in.Arrivals()) >= h.Len() })
	time.Sleep(50 * time.Millisecond) // let any stray resend land; none must
	if got, want := len(in.Arrivals()), h.Len(); got != want {
		t.Fatalf("the server saw %d create requests for %d attempts in the history", got, want)
	}
}

// TestDuplicateDetectorCatchesNaiveClient is the mutant for the test
// above: Go's default handling of an Idempotency-Key POST resends it on
// a reset pooled connection, and the same counting sees it.
func TestDuplicateDetectorCatchesNaiveClient(t *testing.T) {
	env, in := newEnv(t)
	// Route a default transport through the clean lane's proxy.
	client := &http.Client{Transport: &http.Transport{}}
	url := "http://" + env.Clean.Addr
	body, _ := env.Body(env.NewMarker("naive"), "1")
	sendWithDefaultTransport(client, url, env.NewKey(), body) // warm
	before := len(in.Arrivals())
	remove, err := env.Clean.Apply(harness.ResetPeer{})
	if err != nil {
		t.Fatal(err)
	}
	sendWithDefaultTransport(client, url, env.NewKey(), body)
	remove()
	if got := len(in.Arrivals()) - before; got < 2 {
		t.Fatalf("the naive client's one call reached the server %d times; the detector should see a resend", got)
	}
}
