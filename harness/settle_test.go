package harness_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/history"
)

// SendUntil spends its waits between attempts through the attempt's
// Pause (the property search's pool lets a restart in meanwhile): one
// call between two attempts, none before the first or after the last,
// each as long as the answer's Retry-After asked; a pause cut short ends
// the settle.
func TestSendUntilPausesBetweenAttempts(t *testing.T) {
	var answered atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if answered.Add(1) <= 2 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusConflict)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"id":"r1"}`)
	}))
	defer srv.Close()
	env, err := harness.New(fakes.DescribeTarget(srv.URL, "reference"), harness.DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	busy := func(x history.Exchange) bool { return x.Status == http.StatusConflict }
	var pauses []time.Duration
	a := harness.Attempt{Step: "settle", Lane: env.Clean, Key: "k-1", Body: []byte(`{}`),
		Pause: func(_ context.Context, d time.Duration) bool { pauses = append(pauses, d); return true }}
	xs := env.SendUntil(context.Background(), &history.History{}, a, time.Minute, busy)
	if len(xs) != 3 || xs[2].Status != http.StatusCreated {
		t.Fatalf("%d attempts, the last %d; want 3, the last 201", len(xs), xs[len(xs)-1].Status)
	}
	if want := []time.Duration{time.Second, time.Second}; !slices.Equal(pauses, want) {
		t.Fatalf("pauses %v, want %v (one between each two attempts, as Retry-After asked)", pauses, want)
	}

	answered.Store(0)
	a.Pause = func(context.Context, time.Duration) bool { return false }
	if xs := env.SendUntil(context.Background(), &history.History{}, a, time.Minute, busy); len(xs) != 1 {
		t.Fatalf("%d attempts after a pause cut short, want 1", len(xs))
	}
}
