package property

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/history"
)

// The property draws a malformed key by its index among harness.MalformedKeys'.
func TestMalformedKeyCasesCountsMalformedKeys(t *testing.T) {
	e := &harness.Env{Target: fakes.DescribeTarget("http://127.0.0.1:1", "fake:reference")}
	keys := harness.MalformedKeys(e)
	if n := len(keys); n != malformedKeyCases {
		t.Fatalf("harness.MalformedKeys makes %d keys, malformedKeyCases says %d", n, malformedKeyCases)
	}
	if last := keys[malformedKeyCases-1]; last.Name != "duplicated header" || len(last.Values) != 2 {
		t.Errorf("the last malformed key is %q, want the duplicated header", last.Name)
	}
}

func TestMemoAnswersOnlyPlansThatRan(t *testing.T) {
	submit := action{name: "submit"}
	burst := action{name: "burst"}
	p := func(a action, key, payload string, n int) planned {
		return planned{action: a, key: key, payload: payload, n: n}
	}
	ab := []planned{p(submit, "k1", "100", 0), p(burst, "k1", "200", 2)}
	var m memo
	m.wentOn(ab[:1])
	m.fail(ab, false, "step 2 (burst of 2): k1: a reused key with another payload was accepted")
	if msg, ok := m.failedAt(ab); !ok || msg != "step 2 (burst of 2): k1: a reused key with another payload was accepted" {
		t.Errorf("failedAt(the failing plan) = %q, %t", msg, ok)
	}
	if !m.continues(ab[:1]) || m.continues(ab) {
		t.Error("continues: only the prefix that held is known to go on")
	}
	other := []planned{p(submit, "k1", "100", 0), p(burst, "k1", "200", 3)}
	if _, ok := m.failedAt(other); ok || m.continues(other) {
		t.Error("a plan that differs in its burst size is not known")
	}
	if _, ok := m.failedAtEnd(ab); ok || m.passed(ab) {
		t.Error("a plan that failed at a step neither failed nor passed at the end")
	}
	m.pass(other)
	m.fail(ab[:1], true, "step 2 (reconcile): k1: ...")
	if !m.passed(other) || m.passed(ab[:1]) {
		t.Error("passed: only the plan that passed")
	}
	if msg, ok := m.failedAtEnd(ab[:1]); !ok || msg != "step 2 (reconcile): k1: ..." {
		t.Errorf("failedAtEnd = %q, %t", msg, ok)
	}
}

// TestReplayCrashesMatchTheSteps: the replay line's --crashes counts the
// crash steps the counterexample shows (a crash on a request doing no
// work takes none of the budget, but a line saying 0 next to a crash
// step reads false), and says none only where a budget would land a
// crash the sequence held.
func TestReplayCrashesMatchTheSteps(t *testing.T) {
	crash := history.Step{Action: "submit, crash mid-request", Fault: "crash"}
	submit := history.Step{Action: "submit"}
	tests := []struct {
		name string
		seq  sequence
		want int
	}{
		{"no crash, none left", sequence{steps: []history.Step{submit}}, -1},
		{"no crash, one left", sequence{startCrashes: 1, steps: []history.Step{submit}}, 1},
		{"a crash on no work, none left", sequence{steps: []history.Step{submit, crash}}, 1},
		{"a crash that landed", sequence{startCrashes: 1, landed: true, steps: []history.Step{crash, submit}}, 1},
		{"two crashes on no work", sequence{steps: []history.Step{crash, submit, crash}}, 2},
		{"an opening crash held", sequence{heldOpening: true, steps: []history.Step{submit, crash}}, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.seq.replayCrashes(); got != tc.want {
				t.Errorf("replayCrashes = %d, want %d", got, tc.want)
			}
		})
	}
}

// TestReplayNotesExplainAHeldCrash: a line that gives fewer crashes than
// the steps show says why, and only then.
func TestReplayNotesExplainAHeldCrash(t *testing.T) {
	crash := history.Step{Action: "submit, crash mid-request", Fault: "crash"}
	held := &pass{best: &sequence{heldOpening: true, steps: []history.Step{crash}}}
	if notes := held.replayNotes(Config{Crashes: held.best.replayCrashes()}); len(notes) != 1 {
		t.Errorf("a held opening crash beside a crash step: notes %q, want one", notes)
	}
	for _, s := range []*sequence{{heldOpening: true}, {steps: []history.Step{crash}}, {}} {
		p := &pass{best: s}
		if notes := p.replayNotes(Config{Crashes: s.replayCrashes()}); len(notes) != 0 {
			t.Errorf("%+v: notes %q, want none", *s, notes)
		}
	}
}

// A pool's workers share one ledger: however many reserve at once, the
// creates reserved never pass the budget, and every one that fits is
// granted.
func TestLedgerReservesWithinTheBudget(t *testing.T) {
	const budget, workers, tries = 100, 8, 1000
	r := &pass{cfg: Config{Budget: budget}, ledger: &ledger{}}
	var granted atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range tries {
				if r.afford(1) {
					granted.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if n := r.ledger.sent(); n != budget || granted.Load() != budget {
		t.Errorf("%d creates reserved, %d granted, under a budget of %d", n, granted.Load(), budget)
	}
}
