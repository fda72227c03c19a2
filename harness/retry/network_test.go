package retry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/harness/retry"
	"github.com/idemspec/idemspec/harness/retry/state"
	"github.com/idemspec/idemspec/internal/testenv"
)

// The client against real HTTP: the reference fake server on loopback.

func startReference(t *testing.T) *fakes.Instance {
	t.Helper()
	in, err := fakes.Start(fakes.Options{}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close() })
	return in
}

// httpClient builds a client for the fakes' API at baseURL.
func httpClient(baseURL string, doer *http.Client, j retry.Journal, p retry.Policy) retry.Client {
	return retry.Client{
		Endpoint: retry.Endpoint{
			NewRequest: func(ctx context.Context, key string, payload []byte) (*http.Request, error) {
				req, err := http.NewRequestWithContext(ctx, http.MethodPost, baseURL+"/resources", bytes.NewReader(payload))
				if err != nil {
					return nil, err
				}
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Idempotency-Key", key)
				return req, nil
			},
			ResourceID: func(body []byte) string { return jsonField(body, "id") },
		},
		Doer: doer,
		Reconciler: retry.HTTPReconciler{
			Doer: doer,
			NewRequest: func(ctx context.Context, op retry.Operation) (*http.Request, error) {
				return http.NewRequestWithContext(ctx, http.MethodGet, baseURL+"/idempotency-keys/"+op.Key, nil)
			},
			Read: readLookup,
		},
		Journal: j,
		Policy:  p,
	}
}

func jsonField(body []byte, field string) string {
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		return ""
	}
	s, _ := doc[field].(string)
	return s
}

func TestAgainstTheReferenceServer(t *testing.T) {
	in := startReference(t)
	doer := &http.Client{}
	defer doer.CloseIdleConnections()
	c := httpClient(in.URL, doer, retry.NewMemoryJournal(), retry.Policy{MaxAttempts: 3, AttemptTimeout: 5 * time.Second, Deadline: 20 * time.Second})
	res, err := c.Submit(context.Background(), "op", []byte(`{"marker":"real-1","amount":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if res.State != state.Succeeded || res.Sent != 1 || res.ResourceID == "" || res.Status != http.StatusCreated {
		t.Fatalf("ended %s after %d sends with resource %q and status %d (%s)", res.State, res.Sent, res.ResourceID, res.Status, res.Reason)
	}
	arrivals := in.Arrivals()
	if len(arrivals) != 1 || arrivals[0].Key != res.Key {
		t.Fatalf("the server saw %+v; want one request with key %s", arrivals, res.Key)
	}
}

// TestResumeAfterACrashMidSend: the journal says SUBMITTING and the
// request did reach the server. The restarted client must reconcile and
// must not send it again.
func TestResumeAfterACrashMidSend(t *testing.T) {
	ctx := context.Background()
	in := startReference(t)
	doer := &http.Client{}
	defer doer.CloseIdleConnections()
	path := filepath.Join(t.TempDir(), "journal.db")
	payload := []byte(`{"marker":"crash-1","amount":1}`)

	// The first process: journal the key, mark the send, send, die.
	j1, err := retry.OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	first := httpClient(in.URL, doer, j1, retry.Policy{})
	op, err := first.Begin(ctx, "op", payload)
	if err != nil {
		t.Fatal(err)
	}
	op.State, op.Attempts = state.Submitting, 1
	if err := j1.Update(ctx, op); err != nil {
		t.Fatal(err)
	}
	req, _ := first.Endpoint.NewRequest(ctx, op.Key, payload)
	resp, err := doer.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	j1.Close()

	j2, err := retry.OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j2.Close()
	second := httpClient(in.URL, doer, j2, retry.Policy{MaxAttempts: 3, AttemptTimeout: 5 * time.Second, Deadline: 20 * time.Second})
	res, err := second.Run(ctx, "op")
	if err != nil {
		t.Fatal(err)
	}
	if res.State != state.Succeeded || res.Sent != 0 || res.Lookups != 1 || res.Key != op.Key || res.ResourceID == "" {
		t.Fatalf("resumed: %s, %d sends, %d look-ups, key %s, resource %q (%s)", res.State, res.Sent, res.Lookups, res.Key, res.ResourceID, res.Reason)
	}
	if n := len(in.Arrivals()); n != 1 {
		t.Fatalf("the server saw %d creates; the resumed client resent", n)
	}
}

// holdServer accepts requests and never answers until the client gives
// up; arrived gets one value per request.
func holdServer(t *testing.T) (*httptest.Server, chan struct{}) {
	arrived := make(chan struct{}, 100)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Reading the body to its end is what lets the server notice
		// the client hanging up (it cancels r.Context()).
		io.Copy(io.Discard, r.Body)
		arrived <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // runs first: Close waits for handlers
	return srv, arrived
}

func TestCancellationStopsARunPromptly(t *testing.T) {
	srv, arrived := holdServer(t)
	doer := &http.Client{}
	defer doer.CloseIdleConnections()
	j := retry.NewMemoryJournal()
	c := httpClient(srv.URL, doer, j, retry.Policy{MaxAttempts: 3, AttemptTimeout: time.Minute, Deadline: 5 * time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-arrived // the request is on the server: now give up
		cancel()
	}()
	start := time.Now()
	res, err := c.Submit(ctx, "op", []byte(`{}`))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	// Ignored, the cancel would leave the attempt to its own timeout (a
	// minute): half of it separates the two whatever the machine's load.
	if took := time.Since(start); took >= c.Policy.AttemptTimeout/2 {
		t.Fatalf("cancelled run took %v: the attempt ran on toward its timeout (%v)", took, c.Policy.AttemptTimeout)
	}
	if res.State != state.UnknownResult || res.Sent != 1 {
		t.Fatalf("cancelled mid-send: %s after %d sends; the request reached the server, so UNKNOWN_RESULT", res.State, res.Sent)
	}
	stored, _ := j.Load(context.Background(), "op")
	if stored.State != state.UnknownResult {
		t.Fatalf("journal says %s after the cancelled send", stored.State)
	}
}

// TestNoGoroutineLeaks: runs that time out, are cancelled or succeed
// leave no goroutine behind once the caller's connections are closed.
func TestNoGoroutineLeaks(t *testing.T) {
	in := startReference(t)
	hold, _ := holdServer(t)
	doer := &http.Client{}
	baseline := runtime.NumGoroutine()

	p := retry.Policy{MaxAttempts: 2, AttemptTimeout: 50 * time.Millisecond, Deadline: 2 * time.Second, BaseBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond}
	timedOut := httpClient(hold.URL, doer, retry.NewMemoryJournal(), p)
	if res, err := timedOut.Submit(context.Background(), "op", []byte(`{}`)); err != nil || res.State != state.UnknownResult {
		t.Fatalf("against a server that never answers: %s, %v", res.State, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	p.AttemptTimeout = time.Minute
	timedOut.Policy = p
	timedOut.Submit(ctx, "op2", []byte(`{}`))
	cancel()
	ok := httpClient(in.URL, doer, retry.NewMemoryJournal(), retry.Policy{})
	if res, err := ok.Submit(context.Background(), "op", []byte(`{"marker":"leak-1","amount":1}`)); err != nil || res.State != state.Succeeded {
		t.Fatalf("against the reference: %s, %v", res.State, err)
	}

	doer.CloseIdleConnections()
	deadline := time.Now().Add(testenv.WaitLimit)
	for runtime.NumGoroutine() > baseline {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, %d before the runs:\n%s", runtime.NumGoroutine(), baseline, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}
