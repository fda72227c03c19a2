package property

import (
	"context"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/harness/check"
)

// silentProcess is the reference fake crashed at a line it never
// writes, as a managed process whose process.crash_at has a typo (or
// whose output is buffered): every crash meant for a request's work
// comes after the answer.
type silentProcess struct{ *fakes.Instance }

func (silentProcess) CrashPoint(string) <-chan struct{} { return make(chan struct{}) }
func (silentProcess) CrashLine(key string) string       { return `working key="` + key + `"` }

// A search whose crashes meant for a request's work all came after the
// answer rests on no crash: P1 and P2 are ERROR naming the line the
// crash waited for, not the PASS a crash-unsafe server would get.
func TestSearchDoesNotRestOnCrashesThatMissed(t *testing.T) {
	env := envOf(t, "reference")
	env.Target.Lifecycle = silentProcess{env.Target.Lifecycle.(*fakes.Instance)}
	// 30 sequences: go test -short draws a fifth of them, and one sequence
	// may draw no crash at all.
	cfg := Config{Sequences: 30, Steps: 4, Seed: 7, Crashes: 1, Workers: 1}
	res, err := Search(context.Background(), env, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []check.Verdict{res.Must.Verdict, res.Should.Verdict} {
		if v.Status != check.ERROR || !strings.Contains(v.Reason, `process.crash_at names, "working key=`) ||
			!strings.Contains(v.Reason, "never landed") {
			t.Errorf("%s %s (%s): want ERROR naming the crash_at line no crash reached", v.Check, v.Status, v.Reason)
		}
	}
}

// The ledger gives a crash drawn from the crash window that came late
// its place back, a few times; a crash point missed gives nothing back;
// one crash that landed is evidence enough.
func TestLedgerCountsCrashesThatMissed(t *testing.T) {
	l := &ledger{crashes: 1}
	l.landCrash()
	l.crashed(false, true)
	if l.crashesLeft() != 1 || l.crashEvidence("late") == "" {
		t.Errorf("a drawn crash that came late: %d left, evidence %q; want its place back, and no evidence yet", l.crashesLeft(), l.crashEvidence("late"))
	}
	for range maxMissedCrashes {
		l.landCrash()
		l.crashed(false, true)
	}
	if l.crashesLeft() > 0 {
		t.Errorf("%d crashes left after %d late ones, want none", l.crashesLeft(), l.missed)
	}
	l.crashed(true, false)
	if why := l.crashEvidence("late"); why != "" {
		t.Errorf("a crash landed, yet: %s", why)
	}
	point := &ledger{crashes: 1}
	point.landCrash()
	point.crashed(false, false)
	if point.crashesLeft() != 0 || !strings.Contains(point.crashEvidence("missed its line"), "missed its line") {
		t.Errorf("a crash point missed: %d left, evidence %q", point.crashesLeft(), point.crashEvidence("missed its line"))
	}
}
