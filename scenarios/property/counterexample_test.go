package property

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
)

// stepShapes are a counterexample's steps as the report shows them,
// without the ids and keys that differ from run to run.
func stepShapes(steps []history.Step) []string {
	var out []string
	for _, st := range steps {
		out = append(out, fmt.Sprintf("%d %s %s %s %s broke %q", st.N, st.Action, st.Key, st.Payload, st.Fault, st.Broken))
	}
	return out
}

// A counterexample found by a search of every action, on a pool, as the
// CLI runs it, replayed from the actions its replay line names: the
// same steps break the same rule, with nothing drawn or shrunk, however
// little time shrinking would get. (The seed alone drew the unshrunk
// sequence and shrank it again, so its counterexample rode the time
// shrinking got and the outcome of every sequence it tried: with no
// time to shrink it was the unshrunk sequence.)
func TestReplayTakesTheCounterexampleAsGiven(t *testing.T) {
	env := envOf(t, "ignore-payload")
	for _, seed := range []uint64{1, 2} {
		cfg := Config{Seed: seed, Workers: QuickWorkers}.WithDefaults()
		found, err := runPass(context.Background(), env, cfg, check.MUST)
		if err != nil {
			t.Fatal(err)
		}
		if found.best == nil {
			t.Fatalf("seed %d: no counterexample", seed)
		}
		var replay Config
		found.cfg.Replay = func(seed int64, c Config, _ string) string {
			replay = c
			replay.Seed = uint64(seed)
			return "replay"
		}
		res := found.result("P1")
		if res.Evidence.Replay == "" || replay.Counterexample != found.best.planText() {
			t.Fatalf("seed %d: the replay's config gives %q, the counterexample's actions are %q", seed, replay.Counterexample, found.best.planText())
		}
		replay.Replay = nil
		for run := 1; run <= 2; run++ {
			if run == 2 {
				replay.ShrinkTime = time.Nanosecond // a machine too busy to shrink
			}
			again, err := runPass(context.Background(), env, replay.WithDefaults(), check.MUST)
			if err != nil {
				t.Fatal(err)
			}
			if again.best == nil {
				t.Fatalf("seed %d, replay %d: no rule broke; notes %q", seed, run, again.notes())
			}
			if got, want := stepShapes(again.best.steps), stepShapes(found.best.steps); !slices.Equal(got, want) {
				t.Errorf("seed %d, replay %d: steps\n%s\nwant the counterexample's\n%s", seed, run, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if again.best.planText() != replay.Counterexample {
				t.Errorf("seed %d, replay %d: took %q, given %q", seed, run, again.best.planText(), replay.Counterexample)
			}
		}
	}
}

// A counterexample whose actions break no rule this time (here, the
// reference's burst) is a pass that says so, and why it may be.
func TestReplayThatBreaksNoRuleSaysWhy(t *testing.T) {
	env := envOf(t, "reference")
	r, err := runPass(context.Background(), env, Config{Counterexample: "submit/k1/100/0;burst/k1/100/2"}.WithDefaults(), check.MUST)
	if err != nil {
		t.Fatal(err)
	}
	if r.best != nil || r.steps != 2 {
		t.Fatalf("the reference failed the replay, or it took %d steps, want 2", r.steps)
	}
	if notes := strings.Join(r.notes(), "\n"); !strings.Contains(notes, "no rule broke this time; its burst ride the machine's timing") {
		t.Errorf("notes do not say why the counterexample did not recur:\n%s", notes)
	}
}

func TestParseCounterexample(t *testing.T) {
	available := availableActions(envOf(t, "reference"))
	plan, err := parsePlan("submit/k1/100/0;burst/k1/200/3;malformed-key/malformed key/100/2", available)
	if err != nil {
		t.Fatal(err)
	}
	if got := planKey(plan); got != "submit/k1/100/0;burst/k1/200/3;malformed-key/malformed key/100/2" {
		t.Errorf("parsed and printed again: %q", got)
	}
	for _, bad := range []string{"submit/k1/100", "submit/k1/100/x", "teleport/k1/100/0", ""} {
		if _, err := parsePlan(bad, available); err == nil || !strings.Contains(err.Error(), "--counterexample") {
			t.Errorf("%q: error %v, want one naming --counterexample", bad, err)
		}
	}
}
