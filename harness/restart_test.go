package harness_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/targets"
)

// crashOnly can crash the fake but has no crash points, like a managed
// process: the crash lands at a delay drawn from the crash window.
type crashOnly struct{ in *fakes.Instance }

func (c crashOnly) Stop() error                     { return c.in.Close() }
func (c crashOnly) Crash(ctx context.Context) error { return c.in.Crash(ctx) }

func TestCrashMidRequest(t *testing.T) {
	cases := []struct {
		name      string
		lifecycle func(*fakes.Instance) targets.Lifecycle
		point     string
	}{
		{"crash point", func(in *fakes.Instance) targets.Lifecycle { return in }, "the fake's crash point"},
		{"crash window", func(in *fakes.Instance) targets.Lifecycle { return crashOnly{in} }, "after the request was delivered (drawn from the crash window 40ms-60ms)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env, in := newEnv(t)
			env.Target.CrashWindow = targets.Window{Min: 40 * time.Millisecond, Max: 60 * time.Millisecond}
			// The same port again, with a long work delay, so a drawn crash
			// lands inside the work.
			if err := in.Close(); err != nil {
				t.Fatal(err)
			}
			slow, err := fakes.Start(fakes.Options{Delay: 500 * time.Millisecond}, in.Addr)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { slow.Close() })
			env.Target.Lifecycle = c.lifecycle(slow)
			h := &history.History{}
			key, marker := env.NewKey(), env.NewMarker("crash")
			body, _ := env.Body(marker, "1")
			x, rec, err := env.CrashMidRequest(context.Background(), h, harness.Attempt{Step: "crashed", Lane: env.Clean, Key: key, Body: body}, rand.New(rand.NewPCG(1, 2)))
			if err != nil {
				t.Fatal(err)
			}
			if x.Outcome != history.MaybeApplied {
				t.Errorf("crashed request: %s %d, want maybe-applied (no answer)", x.Outcome, x.Status)
			}
			if rec.Mode != harness.Crash || !strings.Contains(rec.Point, c.point) || len(rec.Seqs) != 1 || rec.Seqs[0] != x.Seq || rec.Down <= 0 {
				t.Errorf("restart %+v, want a crash at %q naming seq %d", rec, c.point, x.Seq)
			}
			obs, err := env.Observe(context.Background(), marker)
			if err != nil || obs.Count != 0 {
				t.Errorf("after a crash inside the work: %d resources, %v; want 0", obs.Count, err)
			}
			// The target is back: the same request is answered (in flight).
			again := env.Send(context.Background(), h, harness.Attempt{Step: "again", Lane: env.Clean, Key: key, Body: body})
			if again.Outcome != history.OK || again.Status != 409 {
				t.Errorf("after the restart: %s %d, want 409 (the crashed claim is still in flight)", again.Outcome, again.Status)
			}
		})
	}
}

// silentLine can crash the fake and watches for a line it never
// writes, as a managed process whose process.crash_at has a typo.
type silentLine struct{ crashOnly }

func (silentLine) CrashPoint(string) <-chan struct{} { return make(chan struct{}) }
func (silentLine) CrashLine(key string) string       { return "working key=" + key }

// A crash whose moment came after the answer (a line never written, a
// delay longer than the work) is still made, and said to have missed,
// with what it waited for: a caller must not take it for a crash
// mid-request.
func TestCrashMidRequestMissed(t *testing.T) {
	cases := []struct {
		name      string
		lifecycle func(*fakes.Instance) targets.Lifecycle
		drawn     bool
		awaited   string
	}{
		{"a line never written", func(in *fakes.Instance) targets.Lifecycle { return silentLine{crashOnly{in}} }, false, `the line process.crash_at names, "working key=`},
		{"a delay past the work", func(in *fakes.Instance) targets.Lifecycle { return crashOnly{in} }, true, "drawn from the crash window 2s"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env, in := newEnv(t)
			env.Target.CrashWindow = targets.Window{Min: 2 * time.Second, Max: 2 * time.Second}
			env.Target.Lifecycle = c.lifecycle(in)
			key, marker := env.NewKey(), env.NewMarker("crash")
			body, _ := env.Body(marker, "1")
			x, rec, err := env.CrashMidRequest(context.Background(), &history.History{}, harness.Attempt{Step: "crashed", Lane: env.Clean, Key: key, Body: body}, rand.New(rand.NewPCG(1, 2)))
			var missed *harness.CrashMissed
			if !errors.As(err, &missed) {
				t.Fatalf("err %v, want a CrashMissed", err)
			}
			if missed.Drawn != c.drawn || !strings.Contains(missed.Awaited, c.awaited) || missed.Status != x.Status || !x.Is2xx() {
				t.Errorf("missed %+v after %s %d, want drawn %v, awaiting %q", missed, x.Outcome, x.Status, c.drawn, c.awaited)
			}
			if !strings.Contains(err.Error(), "did not land mid-request") {
				t.Errorf("error %q", err)
			}
			if rec.Mode != harness.Crash || !strings.Contains(rec.Point, "after the request was answered") || rec.Down <= 0 {
				t.Errorf("restart %+v: want the crash made after the answer", rec)
			}
		})
	}
}

func TestRestartWithoutCapability(t *testing.T) {
	env, _ := newEnv(t)
	env.Target.Lifecycle = nil
	if _, err := env.Restart(context.Background()); err == nil || !strings.Contains(err.Error(), "cannot be restarted") {
		t.Errorf("Restart: %v", err)
	}
	if _, _, err := env.CrashMidRequest(context.Background(), &history.History{}, harness.Attempt{Lane: env.Clean}, nil); err == nil || !strings.Contains(err.Error(), "cannot be crashed") {
		t.Errorf("CrashMidRequest: %v", err)
	}
}

// slowRestart restarts the fake after a pause, as a restart hook and a
// health check take their time.
type slowRestart struct {
	in    *fakes.Instance
	pause time.Duration
}

func (s slowRestart) Stop() error { return s.in.Close() }
func (s slowRestart) Restart(ctx context.Context) error {
	time.Sleep(s.pause)
	return s.in.Restart(ctx)
}

// TestRestartOnAnswer: the restart begins as the answer's first byte
// arrives, on the goroutine reading it, the answer is still read whole although the restart
// outlasts the request timeout, and the same request afterwards gets the
// original resource on a fresh connection.
func TestRestartOnAnswer(t *testing.T) {
	env, in := newEnv(t)
	// Long enough for the request to reach its first byte on a loaded
	// machine (200 ms was not, once, at a load of 40 on two cores).
	env.Settings.RequestTimeout = 500 * time.Millisecond
	env.Target.Lifecycle = slowRestart{in: in, pause: 3 * env.Settings.RequestTimeout}
	h := &history.History{}
	key, marker := env.NewKey(), env.NewMarker("restart")
	body, _ := env.Body(marker, "1")
	a := harness.Attempt{Step: "original", Lane: env.Clean, Key: key, Body: body}
	x, rec, gap, err := env.RestartOnAnswer(context.Background(), h, a)
	if err != nil {
		t.Fatal(err)
	}
	if x.Outcome != history.OK || x.Status != 201 || x.ResourceID == "" {
		t.Fatalf("the answer: %s %d %q, want 201 with an id, read whole across the restart", x.Outcome, x.Status, x.Error)
	}
	if rec.Mode != harness.Graceful || rec.Down < 3*env.Settings.RequestTimeout {
		t.Errorf("restart %+v, want a graceful one of at least %s", rec, 3*env.Settings.RequestTimeout)
	}
	// The restart runs on the goroutine that read the first byte, before
	// it reads on: it begins after that byte, and the answer's reading
	// ends only once the restart has. The order holds whatever the
	// machine's load (how soon after the byte it begins is the notes'
	// figure, not a verdict).
	if gap < 0 {
		t.Errorf("the restart began %s before the answer's first byte", -gap)
	}
	if read, up := x.Start.Add(x.Duration), rec.At.Add(rec.Down); read.Before(up) {
		t.Errorf("the answer was read whole %s before the restart ended: the restart did not hold its reading", up.Sub(read))
	}
	again := env.Send(context.Background(), h, harness.Attempt{Step: "again", Lane: env.Clean, Key: key, Body: body})
	if again.Outcome != history.OK || again.ResourceID != x.ResourceID {
		t.Errorf("after the restart: %s %d id %q, want the original %s", again.Outcome, again.Status, again.ResourceID, x.ResourceID)
	}
}
