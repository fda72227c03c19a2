package mcptools

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/targets/mcp"
)

func reading(when string, state string, counts map[string]int) Reading {
	return Reading{When: when, State: state, Counts: counts}
}

func TestSameEffect(t *testing.T) {
	for _, c := range []struct {
		name       string
		once, then int
		want       check.Status
	}{
		{"one effect kept", 2, 2, check.PASS},
		{"a repeat added an effect", 2, 4, check.FAIL},
		{"the oracle saw nothing", 0, 0, check.ERROR},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := &Trace{Tool: "put", Calls: []Call{{Seq: 1, Step: "call 1", Outcome: Answered}}, Readings: []Reading{
				reading(whenOnce, "", map[string]int{"m": c.once}),
				reading(whenAfter, "", map[string]int{"m": c.then}),
			}}
			if v := SameEffect("M1", tr, probe{whenOnce, "m"}, probe{whenAfter, "m"}); v.Status != c.want {
				t.Errorf("verdict %s (%s), want %s", v.Status, v.Reason, c.want)
			}
		})
	}
}

// TestSameEffectNeedsAnAnsweredCall: a first call that the tool refused
// is no measure of one call, even when its marker shows (a server that
// logs what it refuses): ERROR, never PASS.
func TestSameEffectNeedsAnAnsweredCall(t *testing.T) {
	for _, o := range []Outcome{ToolError, Refused, Unknown, Lost} {
		tr := &Trace{Tool: "put", Calls: []Call{{Seq: 1, Step: "call 1", Outcome: o, Answer: "no such file"}}, Readings: []Reading{
			reading(whenOnce, "", map[string]int{"m": 1}),
			reading(whenAfter, "", map[string]int{"m": 1}),
		}}
		if v := SameEffect("M1", tr, probe{whenOnce, "m"}, probe{whenAfter, "m"}); v.Status != check.ERROR || !strings.Contains(v.Reason, "no such file") {
			t.Errorf("first call %s: %s (%s), want ERROR quoting its answer", o, v.Status, v.Reason)
		}
	}
	if v := SameEffect("M1", &Trace{Tool: "put"}, probe{whenOnce, "m"}); v.Status != check.ERROR {
		t.Errorf("no call at all: %s, want ERROR", v.Status)
	}
}

func TestNoChange(t *testing.T) {
	answered := []Call{{Seq: 1, Outcome: ToolError}, {Seq: 2, Outcome: Answered}}
	refused := []Call{{Seq: 1, Outcome: ToolError, Answer: "ENOENT"}, {Seq: 2, Outcome: Lost}}
	same := []Reading{reading(whenBefore, `{"a":1}`, nil), reading(whenAfter, `{"a":1}`, nil)}
	changed := []Reading{reading(whenBefore, `{"a":1}`, nil), reading(whenAfter, `{"a":2}`, nil)}
	for _, c := range []struct {
		name     string
		calls    []Call
		readings []Reading
		want     check.Status
	}{
		{"same state, a call answered", answered, same, check.PASS},
		{"changed state", answered, changed, check.FAIL},
		{"changed state, every call refused", refused, changed, check.FAIL},
		{"same state, every call refused: no evidence", refused, same, check.ERROR},
		{"same state, no call", nil, same, check.ERROR},
	} {
		if v := NoChange("M4", &Trace{Tool: "read", Calls: c.calls, Readings: c.readings}); v.Status != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, v.Status, v.Reason, c.want)
		}
	}
}

func TestKeyHeld(t *testing.T) {
	for _, c := range []struct {
		name    string
		outcome Outcome
		first   int
		changed int
		want    check.Status
	}{
		{"refused, no effect", ToolError, 1, 0, check.PASS},
		{"refused by JSON-RPC", Refused, 1, 0, check.PASS},
		{"accepted without effect", Answered, 1, 0, check.FAIL},
		{"acted on the changed arguments", ToolError, 1, 1, check.FAIL},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := &Trace{Tool: "create", Calls: []Call{{Seq: 1, Step: "call 1", Outcome: Answered}, {Seq: 2, Step: stepChanged, Outcome: c.outcome}},
				Readings: []Reading{
					reading(whenOnce, "", map[string]int{"m": 1}),
					reading(whenChanged, "", map[string]int{"m": c.first, "n": c.changed}),
				}}
			if v := KeyHeld("M6", tr, probe{whenOnce, "m"}, probe{whenChanged, "n"}); v.Status != c.want {
				t.Errorf("verdict %s (%s), want %s", v.Status, v.Reason, c.want)
			}
		})
	}
}

func TestRetrySafe(t *testing.T) {
	for _, c := range []struct {
		name string
		tool mcp.Tool
		key  string
		want check.Status
	}{
		{"read-only", mcp.Tool{Name: "t", Annotated: true, ReadOnly: true}, "", check.PASS},
		{"idempotent", mcp.Tool{Name: "t", Annotated: true, Idempotent: true}, "", check.PASS},
		{"keyed", mcp.Tool{Name: "t", Annotated: true}, "request_id", check.PASS},
		{"neither", mcp.Tool{Name: "t", Annotated: true, Destructive: true}, "", check.WARN},
	} {
		t.Run(c.name, func(t *testing.T) {
			if v := RetrySafe("M8", c.tool, c.key); v.Status != c.want {
				t.Errorf("verdict %s, want %s", v.Status, c.want)
			}
		})
	}
}

// TestUnverified: an audit verified something only if a check that
// calls a tool reached PASS or FAIL; M8, judged from the declaration,
// verifies no hint.
func TestUnverified(t *testing.T) {
	tool := Audited{Tool: mcp.Tool{Name: "t", Annotated: true, ReadOnly: true}}
	result := func(c *Check, s check.Status, reason string) Result {
		return Result{Tool: tool.Tool, Check: c.Entry(), Verdict: check.Verdict{Check: c.ID, Status: s, Reason: reason}}
	}
	for _, c := range []struct {
		name     string
		results  []Result
		tools    []Audited
		verified bool
	}{
		{"M4 skipped for want of an oracle, M8 passed", []Result{result(M4, check.SKIP, "no oracle"), result(M8, check.PASS, "")}, []Audited{tool}, false},
		{"M4 in error", []Result{result(M4, check.ERROR, "no call was answered")}, []Audited{tool}, false},
		{"M4 passed", []Result{result(M4, check.PASS, ""), result(M8, check.PASS, "")}, []Audited{tool}, true},
		{"M4 failed", []Result{result(M4, check.FAIL, "")}, []Audited{tool}, true},
		{"no tool", nil, nil, false},
	} {
		why := Unverified(c.results, c.tools)
		if (why == "") != c.verified {
			t.Errorf("%s: %q, want verified %v", c.name, why, c.verified)
		}
		if why != "" && len(c.tools) > 0 && !strings.Contains(why, "name an oracle") {
			t.Errorf("%s: %q gives no advice", c.name, why)
		}
	}
}

// TestSameEffectOfFreshArguments: a burst (or a retry after a crash) of
// fresh arguments that left no effect is no FAIL when none of its calls
// was answered (nothing to judge: ERROR), and a FAIL when one was.
func TestSameEffectOfFreshArguments(t *testing.T) {
	for _, c := range []struct {
		name    string
		outcome Outcome
		want    check.Status
	}{
		{"every call of the burst refused", ToolError, check.ERROR},
		{"a call of the burst answered, no effect", Answered, check.FAIL},
	} {
		tr := &Trace{Tool: "put", Calls: []Call{
			{Seq: 1, Step: "one call", Args: `{"name":"idm-one"}`, Outcome: Answered},
			{Seq: 2, Step: "burst 1/2", Args: `{"name":"idm-burst"}`, Outcome: ToolError, Answer: "busy"},
			{Seq: 3, Step: "burst 2/2", Args: `{"name":"idm-burst"}`, Outcome: c.outcome},
		}, Readings: []Reading{reading(whenBurst, "", map[string]int{"idm-one": 1, "idm-burst": 0})}}
		if v := SameEffect("M2", tr, probe{whenBurst, "idm-one"}, probe{whenBurst, "idm-burst"}); v.Status != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, v.Status, v.Reason, c.want)
		}
	}
}

// TestCrashedNeedsCrashesThatLanded: M3's crashes that came after their
// call's answer are no evidence. The counts of such a run would PASS a
// tool that is not crash-safe (nothing was cut half-way), so M3 is
// ERROR saying what the crash waited for, never PASS; counts that show
// a violation all the same are a FAIL.
func TestCrashedNeedsCrashesThatLanded(t *testing.T) {
	missed := "a repeat's crash: " + (&mcp.CrashMissed{Awaited: "500ms after the call was delivered", Hint: "aimed at half the 1s the answered repeat after the restart took"}).Error()
	probes := []probe{{whenRestart, "m"}, {whenRepeatCrash, "m"}}
	trace := func(then int) *Trace {
		return &Trace{Tool: "put", Calls: []Call{{Seq: 1, Step: "call 1", Outcome: Answered}}, Readings: []Reading{
			reading(whenOnce, "", map[string]int{"m": 1}),
			reading(whenRestart, "", map[string]int{"m": 1}),
			reading(whenRepeatCrash, "", map[string]int{"m": then}),
		}}
	}
	for _, c := range []struct {
		name   string
		then   int
		missed []string
		want   check.Status
	}{
		{"every crash landed", 1, nil, check.PASS},
		{"a crash came after the answer", 1, []string{missed}, check.ERROR},
		{"a crash came after the answer, and a repeat doubled", 2, []string{missed}, check.FAIL},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := Crashed("M3", trace(c.then), c.missed, probe{whenOnce, "m"}, probes...)
			if v.Status != c.want {
				t.Fatalf("verdict %s (%s), want %s", v.Status, v.Reason, c.want)
			}
			if c.want != check.ERROR {
				return
			}
			for _, want := range []string{"did not land mid-call", "500ms after the call was delivered", "half the 1s"} {
				if !strings.Contains(v.Reason, want) {
					t.Errorf("the reason does not say %q: %s", want, v.Reason)
				}
			}
		})
	}
}

// crasher is a Server whose crashes come after the answer while the
// aim is later than the call's answer (took).
type crasher struct {
	Server
	took   time.Duration
	afters []time.Duration
}

func (c *crasher) CrashDuring(_ context.Context, _ string, _ map[string]any, after time.Duration) (string, error) {
	c.afters = append(c.afters, after)
	if after >= c.took {
		return "", &mcp.CrashMissed{Awaited: after.String() + " after the call was sent", Took: c.took}
	}
	return after.String() + " after the call was sent", nil
}

// TestCrashAimsAgainInsideTheCall: M3's crash that came after the answer
// is aimed again at half the time the answered call took, so that an aim
// measured on a slower call (the repeat after a restart on a busy
// machine) does not miss every faster one; a call faster than any aim
// is missed crashTries times and said so.
func TestCrashAimsAgainInsideTheCall(t *testing.T) {
	for _, c := range []struct {
		name       string
		took       time.Duration
		wantAfters []time.Duration
		wantMissed bool
	}{
		{"landed after a miss", 40 * time.Millisecond, []time.Duration{100 * time.Millisecond, 20 * time.Millisecond}, false},
		{"never landed", 0, []time.Duration{100 * time.Millisecond, 100 * time.Millisecond, 100 * time.Millisecond}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := &crasher{took: c.took}
			tr := &trial{srv: srv, tool: mcp.Tool{Name: "put"}, trace: &Trace{Tool: "put"}}
			late, err := tr.crash(context.Background(), "a repeat", func() map[string]any { return map[string]any{"n": 1} }, 100*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(srv.afters, c.wantAfters) {
				t.Errorf("crashes aimed at %v, want %v", srv.afters, c.wantAfters)
			}
			if (late != nil) != c.wantMissed {
				t.Errorf("missed %v, want %v", late, c.wantMissed)
			}
			if len(tr.trace.Calls) != len(c.wantAfters) || !strings.Contains(strings.Join(tr.trace.Notes, "\n"), "crash 1 of at most 3 came after the answer") {
				t.Errorf("%d calls recorded, notes %q", len(tr.trace.Calls), tr.trace.Notes)
			}
		})
	}
}
