package console_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/internal/console"
)

// screen is what a Display wrote; the redraws write from their own
// goroutine, so reads take the lock too.
type screen struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var (
	s1 = check.Entry{ID: "S1", Title: "should create exactly one resource"}
	s2 = check.Entry{ID: "S2", Title: "should replay the original result"}
	s3 = check.Entry{ID: "S3", Title: "should reject a reused key"}
	p1 = check.Entry{ID: "P1", Title: "should execute each key once across random sequences"}
)

func all(string) bool { return true }

func TestLinesInTheCataloguesOrder(t *testing.T) {
	var out screen
	d := console.New(&out, console.Options{InOrder: true})
	d.Begin([]check.Entry{s1, s2, s3}, all)
	d.Finish("S3", check.PASS, "S3 third")
	d.Finish("S2", check.FAIL, "S2 second\n    why")
	if got := out.String(); got != "" {
		t.Fatalf("printed %q before S1 finished", got)
	}
	d.Finish("S1", check.SKIP, "S1 first")
	want := "SKIP  S1 first\nFAIL  S2 second\n    why\nPASS  S3 third\n"
	if got := out.String(); got != want {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
	d.Close()
	if got := out.String(); got != want {
		t.Errorf("Close added %q", strings.TrimPrefix(got, want))
	}
}

func TestLinesEachAsSoonAsTheChecksBeforeItFinished(t *testing.T) {
	var out screen
	d := console.New(&out, console.Options{InOrder: true})
	d.Begin([]check.Entry{s1, s2, s3}, all)
	d.Finish("S1", check.PASS, "S1")
	if got := out.String(); got != "PASS  S1\n" {
		t.Fatalf("S1 finished first: got %q", got)
	}
	d.Finish("K9", check.PASS, "K9 not in the run")
	if got := out.String(); got != "PASS  S1\nPASS  K9 not in the run\n" {
		t.Fatalf("a check Begin did not name waits for nothing: got %q", got)
	}
	d.Close()
}

func TestCloseFlushesWhatAnUnfinishedCheckHeldBack(t *testing.T) {
	var out screen
	d := console.New(&out, console.Options{InOrder: true})
	d.Begin([]check.Entry{s1, s2, s3}, all)
	d.Finish("S3", check.PASS, "S3")
	d.Finish("S2", check.ERROR, "S2")
	d.Close() // S1 never finished: an interrupted run
	if got, want := out.String(), "ERROR S2\nPASS  S3\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	d.Finish("S1", check.SKIP, "S1 late")
	if got, want := out.String(), "ERROR S2\nPASS  S3\nSKIP  S1 late\n"; got != want {
		t.Errorf("a line after Close: got %q, want %q", got, want)
	}
}

func TestLinesAsChecksFinishWhenNotInOrder(t *testing.T) {
	var out screen
	d := console.New(&out, console.Options{})
	d.Begin([]check.Entry{s1, s2}, all)
	d.Finish("S2", check.WARN, "S2")
	d.Finish("S1", check.PASS, "S1")
	d.Close()
	if got, want := out.String(), "WARN  S2\nPASS  S1\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestColourOfEachVerdict(t *testing.T) {
	for _, tc := range []struct {
		status check.Status
		colour string
	}{
		{check.PASS, "\x1b[32m"},
		{check.FAIL, "\x1b[1;31m"},
		{check.WARN, "\x1b[33m"},
		{check.ERROR, "\x1b[1;35m"},
		{check.SKIP, "\x1b[2m"},
	} {
		t.Run(string(tc.status), func(t *testing.T) {
			for _, color := range []bool{true, false} {
				var out screen
				d := console.New(&out, console.Options{Color: color})
				d.Finish("S1", tc.status, "S1 title")
				d.Close()
				plain := string(tc.status) + strings.Repeat(" ", 6-len(tc.status)) + "S1 title\n"
				want := plain
				if color {
					want = tc.colour + string(tc.status) + "\x1b[0m" + plain[len(tc.status):]
				}
				if got := out.String(); got != want {
					t.Errorf("color %t: got %q, want %q", color, got, want)
				}
			}
		})
	}
}

// live is a live Display whose redraws the test paces.
type live struct {
	*console.Display
	out   screen
	ticks chan time.Time
}

func newLive(t *testing.T, columns int) *live {
	l := &live{ticks: make(chan time.Time)}
	l.Display = console.New(&l.out, console.Options{Live: true, Columns: func() int { return columns }, Redraws: l.ticks})
	t.Cleanup(l.Close)
	return l
}

// redraw waits for one redraw: the second tick is taken only once the
// first one's redraw is written.
func (l *live) redraw() {
	l.ticks <- time.Now()
	l.ticks <- time.Now()
}

func TestStatusLineShowsTheCheckUnderWay(t *testing.T) {
	l := newLive(t, 200)
	l.Begin([]check.Entry{p1, s1, s2, s3}, func(id string) bool { return id != "S3" })
	l.Start(s1)
	l.Finish("S1", check.PASS, "S1")
	l.Start(p1)
	l.Searching("MUST rules: sequence 3 of 25")
	l.redraw()
	out := l.out.String()
	want := "\r[2/3] P1 0.0s · MUST rules: sequence 3 of 25 · should execute each key once across random sequences\x1b[K"
	if !strings.HasSuffix(out, want) {
		t.Fatalf("status line: got %q, want it to end %q", out, want)
	}
	l.Finish("P1", check.PASS, "P1")
	if out := l.out.String(); !strings.HasSuffix(out, "\x1b[K\r\x1b[2KPASS  P1\n") {
		t.Errorf("the status line was not cleared before the finished line: %q", out)
	}
	l.redraw()
	if out := l.out.String(); !strings.HasSuffix(out, "PASS  P1\n") {
		t.Errorf("a status line with no check under way: %q", out)
	}
}

func TestStatusLineKeepsToTheTerminalsWidth(t *testing.T) {
	l := newLive(t, 30)
	l.Begin([]check.Entry{p1}, all)
	l.Start(p1)
	l.redraw()
	out := l.out.String()
	line := out[strings.LastIndex(out, "\r")+1 : len(out)-len("\x1b[K")]
	if n := len([]rune(line)); n != 29 || !strings.HasSuffix(line, "…") {
		t.Errorf("status line %q: %d columns, want 29 ending in …", line, n)
	}
}

func TestCloseClearsTheStatusLineAndStopsRedrawing(t *testing.T) {
	l := newLive(t, 200)
	l.Begin([]check.Entry{s1, s2}, all)
	l.Start(s1)
	l.redraw()
	l.Close()
	out := l.out.String()
	if !strings.Contains(out, "[1/2] S1") || !strings.HasSuffix(out, "\x1b[K\r\x1b[2K") {
		t.Fatalf("want the status line drawn, then cleared at the end: %q", out)
	}
	select {
	case l.ticks <- time.Now():
		t.Error("still redrawing after Close")
	case <-time.After(50 * time.Millisecond):
	}
	l.Close() // twice is fine
	if got := l.out.String(); got != out {
		t.Errorf("a second Close wrote %q", strings.TrimPrefix(got, out))
	}
}

// The Display is used from the specs' goroutines while its own redraws
// run: under -race this must be clean, with its own ticker.
func TestConcurrentUse(t *testing.T) {
	var out screen
	d := console.New(&out, console.Options{Live: true, InOrder: true})
	d.Begin([]check.Entry{s1, s2, s3}, all)
	var wg sync.WaitGroup
	for _, c := range []check.Entry{s3, s2, s1} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d.Start(c)
			for i := range 100 {
				d.Searching("sequence " + strings.Repeat("x", i%5))
			}
			d.Finish(c.ID, check.PASS, c.ID)
		}()
	}
	wg.Wait()
	d.Close()
	got := out.String()
	if i, j, k := strings.Index(got, "PASS  S1"), strings.Index(got, "PASS  S2"), strings.Index(got, "PASS  S3"); i < 0 || i > j || j > k {
		t.Errorf("lines out of order: %q", got)
	}
}

// A piped run prints a line at each progress tick while a check is
// under way, and nothing at a tick between checks; no escape sequence.
func TestProgressLinesWhenNotLive(t *testing.T) {
	var out screen
	ticks := make(chan time.Time)
	d := console.New(&out, console.Options{InOrder: true, Progress: ticks})
	t.Cleanup(d.Close)
	tick := func() { ticks <- time.Now(); ticks <- time.Now() } // the second is taken once the first is written
	d.Begin([]check.Entry{p1, s1}, all)
	tick()
	if got := out.String(); got != "" {
		t.Errorf("a progress line with no check under way: %q", got)
	}
	d.Start(p1)
	d.Searching("MUST rules: sequence 3 of 25")
	tick()
	// Each tick's line, whole (a log does not wrap), with no escape.
	want := "...   [1/2] P1 0.0s · MUST rules: sequence 3 of 25 · should execute each key once across random sequences"
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	for _, l := range lines {
		if l != want {
			t.Fatalf("progress: %q, want lines %q", out.String(), want)
		}
	}
	d.Finish("P1", check.PASS, "P1")
	before := out.String()
	tick()
	if got := out.String(); got != before {
		t.Errorf("a progress line after the check finished: %q", strings.TrimPrefix(got, before))
	}
	d.Close()
	select {
	case ticks <- time.Now():
		t.Error("still printing progress after Close")
	case <-time.After(50 * time.Millisecond):
	}
}
