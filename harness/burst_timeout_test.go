package harness_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/history"
)

// A burst's opening and its answers are bounded one timeout each: a slow
// opening (here a server that never asks for the body, so the burst waits
// out what BurstPatience leaves of ContinueWait, as twenty TLS handshakes
// on a busy machine can take) must not eat the time the answers have.
// With one timeout for both, these answers, 2.1 s after the heads, came
// after the 2 s deadline and read as "no answer".
func TestBurstAnswersHaveTheirOwnTimeout(t *testing.T) {
	const think = 2100 * time.Millisecond
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(think) // the body is read (and 100 Continue sent) only now
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"id":"r1"}`)
	}))
	defer srv.Close()
	s := harness.DefaultSettings()
	s.RequestTimeout = 2 * time.Second
	s.ContinueWait = 1500 * time.Millisecond
	env, err := harness.New(fakes.DescribeTarget(srv.URL, "reference"), s)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	body, _ := env.Body(env.NewMarker("slow-opening"), "1")
	_, sends, err := env.Burst(context.Background(), &history.History{}, harness.BurstSpec{
		Step: "burst", Lane: harness.DirectLane(srv.Listener.Addr().String()), Key: env.NewKey(), Body: body, Size: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range sends {
		if x.Outcome != history.OK || x.Status != http.StatusCreated {
			t.Errorf("%s: %s %d %s, want a 201 answer", x.Step, x.Outcome, x.Status, x.Error)
		}
	}
}
