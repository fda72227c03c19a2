package main_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/reports"
	"github.com/idemspec/idemspec/scenarios"
	"github.com/idemspec/idemspec/scenarios/property"
)

// ridesWindow says whether an entry's bug shows only when requests meet
// inside a window of time: two creates with one key in flight at once
// (check-then-insert's race, per-process-lock's on two instances;
// in-flight-429's duplicate in flight) or a restart inside the gap
// between an answer and its record (record-after-answer). Whether a
// candidate sequence fails then depends on the machine's scheduling as
// well as on its actions. (nodedup fails S4 too, but on every run.)
func ridesWindow(m matrixEntry) bool {
	return slices.Contains([]string{"check-then-insert", "per-process-lock", "in-flight-429"}, m.Name) ||
		strings.HasPrefix(m.Name, "record-after-answer")
}

// shrunkFrom is the length of the first counterexample, as the notes
// give it ("shrunk from 25 to 6 steps"), or 0.
func shrunkFrom(notes []string) int {
	for _, n := range notes {
		if _, rest, ok := strings.Cut(n, "shrunk from "); ok {
			var from, to int
			if _, err := fmt.Sscanf(rest, "%d to %d steps", &from, &to); err == nil {
				return from
			}
		}
	}
	return 0
}

// noted says whether one of the evidence's notes says s.
func noted(ev check.Evidence, s string) bool {
	return slices.ContainsFunc(ev.Notes, func(n string) bool { return strings.Contains(n, s) })
}

// unrepeated says whether the evidence is a race's P2 counterexample
// that did not recur when searched again: it is shown as it ran, with no
// replay line (its seed does not bring the race back).
func unrepeated(m matrixEntry, ev check.Evidence) bool {
	return ridesWindow(m) && ev.Replay == "" && noted(ev, property.RaceDidNotRecur)
}

// shrinkHolds judges the counterexample a property gave against entry m,
// by what holds whatever the machine's load: it went through shrinking
// (the notes say from how many steps), and it is the shortest failing
// sequence the search ran, never longer than the first one found. How
// short it gets is no bound here. On a busy machine a shorter candidate
// whose burst, crash or timeout fell otherwise does not fail, so even a
// bug that shows on every run of its actions may stop shrinking early;
// a bug riding a window (ridesWindow) may on any machine. The shrinker's
// own bound, with timing taken out of the actions, is held by
// TestShrinkReachesTheBugsFewActions in scenarios/property.
func shrinkHolds(m matrixEntry, ev check.Evidence) error {
	n, from := len(ev.Steps), shrunkFrom(ev.Notes)
	switch {
	case n == 0:
		return fmt.Errorf("no counterexample")
	case from == 0 && unrepeated(m, ev):
		return nil // shown as it ran, unshrunk, and the notes say why
	case from == 0:
		return fmt.Errorf("counterexample of %d steps, and the notes give no shrink: %q", n, ev.Notes)
	case n > from:
		return fmt.Errorf("counterexample of %d steps, longer than the first one found (%d): not the shortest found", n, from)
	}
	return nil
}

// TestPropertyAloneCatchesEveryMutant is the property-only pass of the
// detection matrix: with every scenario filtered out, the properties pass
// against the reference (under every profile) and catch every mutant,
// each run, at default settings: P1 fails against a mutant that breaks a
// MUST, P2 warns of one that breaks only SHOULDs, each with a shrunk
// counterexample and the line that replays it.
func TestPropertyAloneCatchesEveryMutant(t *testing.T) {
	t.Parallel()
	forEach(t, serverFanOut(t, propertyFanOut), propertyWeight, serverRepeats(t, fastTier(matrixEntries(), serverCatches)), repeatName(entryName), func(t *testing.T, run repeat[matrixEntry]) {
		m := run.entry
		r := matrixRun(t, m, "--target", m.target, "--label-filter", "property")
		want := map[string]check.Status{scenarios.P1.ID: check.PASS, scenarios.P2.ID: check.PASS}
		catcher, code := "", 0
		switch {
		case slices.Contains(m.CaughtBy(), scenarios.P1.ID):
			catcher, code = scenarios.P1.ID, 1
			want[scenarios.P1.ID], want[scenarios.P2.ID] = check.FAIL, check.SKIP
		case slices.Contains(m.CaughtBy(), scenarios.P2.ID):
			catcher = scenarios.P2.ID
			want[scenarios.P2.ID] = check.WARN
		default:
			// The reference, or a mutant right on one instance
			// (caught on two, where its entry lists P1).
			if m.Name != fakes.Reference && len(m.Catches) > 0 {
				t.Fatalf("%s lists neither P1 nor P2", m.Name)
			}
		}
		for id, w := range want {
			if got := checkResult(t, r, id); got.Verdict != w {
				t.Fatalf("%s: %s %s, want %s\n%s%s", run, id, got.Verdict, w, r.stdout, r.stderr)
			}
		}
		if r.code != code {
			t.Fatalf("%s: exit %d, want %d\n%s", run, r.code, code, r.stdout)
		}
		for _, c := range r.report.Checks {
			if c.Group != "property" && c.Verdict != check.SKIP {
				t.Fatalf("%s: %s ran (%s) though the label filter selects the properties alone", run, c.ID, c.Verdict)
			}
			// One search serves both: each shows its time, whichever
			// spec ran it.
			if c.Group == "property" && (c.Evidence.Search <= 0 || c.DurationMS < reports.MS(c.Evidence.Search)) {
				t.Fatalf("%s: %s took %.2f ms, its search %s: want the search's time", run, c.ID, c.DurationMS, c.Evidence.Search)
			}
		}
		if catcher == "" {
			return
		}
		ev := checkResult(t, r, catcher).Evidence
		if err := shrinkHolds(m, ev); err != nil {
			t.Fatalf("%s: %s %v\n%s", run, catcher, err, r.stdout)
		}
		t.Logf("%s: %s counterexample of %d steps (first %d)", run, catcher, len(ev.Steps), shrunkFrom(ev.Notes))
		if unrepeated(m, ev) {
			if !strings.Contains(r.stdout, "counterexample, shrunk to") {
				t.Fatalf("%s: the terminal does not show the counterexample:\n%s", run, r.stdout)
			}
			return
		}
		target := m.target
		if strings.ContainsAny(target, "?&") {
			target = "'" + target + "'" // shell-quoted
		}
		if !strings.HasPrefix(ev.Replay, "idemspec run --target "+target+" --label-filter property --seed ") {
			t.Fatalf("%s: replay line %q", run, ev.Replay)
		}
		if !strings.Contains(r.stdout, "counterexample, shrunk to") || !strings.Contains(r.stdout, "replay: "+ev.Replay) {
			t.Fatalf("%s: the terminal does not show the counterexample and its replay line:\n%s", run, r.stdout)
		}
		replayAgrees(t, ev)
	})
}

// TestPropertyReplayReproducesTheCounterexample runs the printed replay
// line, which names the counterexample's actions (--counterexample), and
// gets the same steps (for a mutant whose bug shows on every run), or
// for a race the same broken rule, or a note saying it did not recur and
// why. A replay that searched and shrank again from the seed could end
// at another counterexample on a busy machine.
func TestPropertyReplayReproducesTheCounterexample(t *testing.T) {
	long(t)
	t.Parallel()
	for _, c := range []struct {
		mutant string
		check  string
		same   bool // the shrunk steps must be identical
	}{
		{"nodedup", "P1", true}, {"ignore-payload", "P1", true}, {"check-then-insert", "P1", false},
		{"missing-key-422", "P2", true},
	} {
		t.Run(c.mutant, func(t *testing.T) {
			t.Parallel()
			first := checkResult(t, run(t, "--target", "fake:"+c.mutant, "--label-filter", "property"), c.check)
			if first.Verdict == check.PASS || first.Evidence.Replay == "" {
				t.Fatalf("%s %s with replay line %q", c.check, first.Verdict, first.Evidence.Replay)
			}
			args, _, unclosed := shellWords(first.Evidence.Replay)
			if unclosed {
				t.Fatalf("replay line %q: an unclosed quote", first.Evidence.Replay)
			}
			if args[0] != "idemspec" || !slices.Contains(args, "--counterexample") {
				t.Fatalf("replay line %q", first.Evidence.Replay)
			}
			dir := t.TempDir()
			r := idemspec(t, append(args[1:], "--report-dir", dir)...)
			rep, err := reports.ReadJSON(filepath.Join(dir, "report.json"))
			if err != nil {
				t.Fatal(err)
			}
			r.report = rep
			again := checkResult(t, r, c.check)
			if !c.same && again.Verdict == check.PASS && slices.ContainsFunc(again.Evidence.Notes, func(n string) bool {
				return strings.Contains(n, "no rule broke this time; its burst")
			}) {
				t.Logf("the race did not recur, and the replay says why: %q", again.Evidence.Notes)
				return
			}
			if again.Verdict != first.Verdict {
				t.Fatalf("replay: %s %s, first run %s\n%s", c.check, again.Verdict, first.Verdict, r.stdout)
			}
			got, want := brokenRules(again.Evidence.Steps), brokenRules(first.Evidence.Steps)
			if !c.same {
				// A race's replay breaks the same rules, not necessarily
				// as many times: how many requests met in its window is
				// the machine's doing.
				got, want = distinct(got), distinct(want)
			}
			if !slices.Equal(got, want) {
				t.Errorf("replay broke %q, first run %q", got, want)
			}
			if c.same && !slices.Equal(shape(again.Evidence.Steps), shape(first.Evidence.Steps)) {
				t.Errorf("replay shrank to\n%s\nfirst run to\n%s", strings.Join(shape(again.Evidence.Steps), "\n"), strings.Join(shape(first.Evidence.Steps), "\n"))
			}
		})
	}
}

// TestPropertiesAttributeSharedViews: a correct API whose list endpoint
// ignores the caller's credentials (an admin or service view) shows a
// pool key's resource and its twin's under one marker; the properties
// attribute each to the key whose answers named it, so the reference
// passes P1 and P2 whatever the seed, and the twins were really drawn.
func TestPropertiesAttributeSharedViews(t *testing.T) {
	long(t)
	t.Parallel()
	const seeds = 20
	for seed := 1; seed <= seeds; seed++ {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			t.Parallel()
			r := run(t, "--target", "fake:reference?list_scope=all", "--label-filter", "property", "--seed", fmt.Sprint(seed))
			for _, id := range properties {
				if got := checkResult(t, r, id); got.Verdict != check.PASS {
					t.Fatalf("%s %s\n%s", id, got.Verdict, r.stdout)
				}
			}
			if drawn := slices.ContainsFunc(checkResult(t, r, scenarios.P1.ID).Evidence.Notes, func(n string) bool {
				return strings.Contains(n, "other-tenant ") && !strings.Contains(n, "other-tenant 0")
			}); !drawn {
				t.Fatalf("no twin was sent as another tenant: notes %q", checkResult(t, r, scenarios.P1.ID).Evidence.Notes)
			}
		})
	}
}

func TestPropertySeedIsPrintedAndStored(t *testing.T) {
	t.Parallel()
	r := run(t, "--label-filter", "property", "--seed", "4242", "--sequences", "3", "--steps", "5")
	if r.code != 0 || r.report.Run.Seed != 4242 || !strings.Contains(r.stdout, "seed 4242") {
		t.Fatalf("exit %d, report seed %d\n%s", r.code, r.report.Run.Seed, r.stdout)
	}
	if !sequencesNoted(t, r, 3) {
		t.Errorf("notes %q do not give the sequences and the seed", checkResult(t, r, scenarios.P1.ID).Evidence.Notes)
	}
}

// --checks, the first name of --sequences, still sets it, says on
// stderr that it is deprecated, and is left out of the help.
func TestChecksFlagIsADeprecatedSequences(t *testing.T) {
	t.Parallel()
	r := run(t, "--label-filter", "property", "--seed", "4242", "--checks", "2", "--steps", "5")
	if r.code != 0 || !sequencesNoted(t, r, 2) {
		t.Fatalf("exit %d, notes %q\n%s", r.code, checkResult(t, r, scenarios.P1.ID).Evidence.Notes, r.stdout)
	}
	if !strings.Contains(r.stderr, "--checks is deprecated: use --sequences") {
		t.Errorf("stderr %q gives no deprecation note", r.stderr)
	}
	help := idemspec(t, "run", "--help")
	if !strings.Contains(help.stdout, "--sequences") || strings.Contains(help.stdout, "--checks") {
		t.Errorf("run --help shows --checks, or not --sequences:\n%s", help.stdout)
	}
}

// sequencesNoted says whether P1's notes give n sequences (and the flag
// that sets them) from seed 4242.
func sequencesNoted(t *testing.T, r result, n int) bool {
	return slices.ContainsFunc(checkResult(t, r, scenarios.P1.ID).Evidence.Notes, func(note string) bool {
		return strings.Contains(note, fmt.Sprintf("rapid: %d sequences (--sequences %d)", n, n)) && strings.Contains(note, "from seed 4242")
	})
}

func TestPropertyBudgetCapsCreateRequests(t *testing.T) {
	t.Parallel()
	r := run(t, "--label-filter", "property", "--property-budget", "30")
	p1 := checkResult(t, r, scenarios.P1.ID)
	if r.code != 0 || p1.Verdict != check.PASS {
		t.Fatalf("exit %d, P1 %s\n%s", r.code, p1.Verdict, r.stdout)
	}
	if !slices.ContainsFunc(p1.Evidence.Notes, func(n string) bool { return strings.Contains(n, "the request budget (30) ran out") }) {
		t.Errorf("notes %q do not say the budget ran out", p1.Evidence.Notes)
	}
	// The budget is checked before each action, and an action under way
	// finishes: a settle's resends to a key still in flight (after a
	// crash, until its in-progress timeout) are counted, said, and not
	// held to it.
	sent, resent := -1, 0
	for _, n := range p1.Evidence.Notes {
		if _, after, ok := strings.Cut(n, " steps taken, "); ok {
			fmt.Sscanf(after, "%d create requests", &sent)
			if _, of, ok := strings.Cut(after, "create requests ("); ok {
				fmt.Sscanf(of, "%d of them "+property.ResentInFlight, &resent)
			}
		}
	}
	if sent < 1 || sent-resent > 30 {
		t.Errorf("%d create requests sent, %d of them resent to a key in flight, under a budget of 30 (notes %q)", sent, resent, p1.Evidence.Notes)
	}
}

func checkResult(t *testing.T, r result, id string) reports.CheckResult {
	t.Helper()
	for _, c := range r.report.Checks {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("no %s in the report\n%s%s", id, r.stdout, r.stderr)
	return reports.CheckResult{}
}

func brokenRules(steps []history.Step) []string {
	var out []string
	for _, st := range steps {
		out = append(out, st.Broken...)
	}
	return out
}

// shape is a counterexample without its ids: what was done, to which key,
// with which payload, and what broke.
func shape(steps []history.Step) []string {
	var out []string
	for _, st := range steps {
		out = append(out, strings.Join([]string{st.Action, st.Key, st.Payload, st.Fault, st.Outcome, strings.Join(st.Broken, "; ")}, " | "))
	}
	return out
}

// TestPropertyOnProcessTarget runs the properties alone against `idemspec
// serve` as a managed process, so restarts and crashes are real process
// starts and SIGKILLs: the reference passes, the crash mutants fail P1,
// and no process is left behind.
func TestPropertyOnProcessTarget(t *testing.T) {
	long(t)
	t.Parallel()
	for _, name := range []string{fakes.Reference, "split-commit", "stuck-inflight"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			r := runEnv(t, []string{"IDEMSPEC_MUTANT=" + name}, "--target", processExample, "--report-dir", dir, "--label-filter", "property")
			want := check.PASS
			if name != fakes.Reference {
				want = check.FAIL
			}
			if got := checkResult(t, r, scenarios.P1.ID); got.Verdict != want {
				t.Fatalf("P1 %s, want %s\n%s%s", got.Verdict, want, r.stdout, r.stderr)
			}
			if left := processesUsing(t, dir); len(left) > 0 {
				t.Fatalf("processes left behind: %v", left)
			}
		})
	}
}

// replayAgrees holds a replay line to the counterexample beside it: its
// --crashes counts the crash steps the table shows (or a note says why
// it gives none).
func replayAgrees(t *testing.T, ev check.Evidence) {
	t.Helper()
	crashSteps := 0
	for _, st := range ev.Steps {
		if st.Fault == "crash" {
			crashSteps++
		}
	}
	_, after, ok := strings.Cut(ev.Replay, " --crashes ")
	if !ok {
		t.Fatalf("replay line %q has no --crashes", ev.Replay)
	}
	crashes, err := strconv.Atoi(strings.Fields(after)[0])
	if err != nil {
		t.Fatalf("replay line %q: %v", ev.Replay, err)
	}
	explained := slices.ContainsFunc(ev.Notes, func(n string) bool { return strings.Contains(n, "the replay line gives no crashes") })
	if crashes < crashSteps && !(crashes == 0 && explained) {
		t.Fatalf("replay line %q gives --crashes %d, the counterexample shows %d crash steps", ev.Replay, crashes, crashSteps)
	}
}

// distinct is rules sorted, each once.
func distinct(rules []string) []string {
	out := slices.Clone(rules)
	slices.Sort(out)
	return slices.Compact(out)
}
