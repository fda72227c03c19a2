package mcptools

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/idemspec/idemspec/fakes/mcpserver"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/reports"
	"github.com/idemspec/idemspec/scenarios/property"
	"github.com/idemspec/idemspec/targets/mcp"
)

func TestEffects(t *testing.T) {
	keys := map[string][]string{"k": {"a", "b"}}
	for _, c := range []struct {
		name   string
		do     func(e *Effects)
		counts map[string]int
		broken bool
	}{
		{"nothing called, nothing shown", func(*Effects) {}, map[string]int{}, false},
		{"answered: one effect", func(e *Effects) { e.Called("k", "a", true) }, map[string]int{"a": 2}, false},
		{"answered: no effect", func(e *Effects) { e.Called("k", "a", true) }, map[string]int{}, true},
		{"answered twice: two effects", func(e *Effects) { e.Called("k", "a", true); e.Called("k", "a", true) }, map[string]int{"a": 4}, true},
		{"lost: it ran", func(e *Effects) { e.Called("k", "a", false) }, map[string]int{"a": 2}, false},
		{"lost: it did not run", func(e *Effects) { e.Called("k", "a", false) }, map[string]int{}, false},
		{"changed under a bound key: no effect", func(e *Effects) { e.Called("k", "a", true); e.Called("k", "b", true) }, map[string]int{"a": 2}, false},
		{"changed under a bound key: acted on", func(e *Effects) { e.Called("k", "a", true); e.Called("k", "b", true) }, map[string]int{"a": 2, "b": 2}, true},
		{"changed after a lost first call that did not run", func(e *Effects) { e.Called("k", "a", false); e.Called("k", "b", true) }, map[string]int{"b": 2}, false},
		{"forgotten by a restart", func(e *Effects) { e.Called("k", "a", true); e.Forget() }, map[string]int{}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := NewEffects(2, keys)
			c.do(e)
			if got := e.Observe(c.counts); (len(got) > 0) != c.broken {
				t.Errorf("mismatches %v, want broken %v", got, c.broken)
			}
		})
	}
	// An observation narrows: once a lost call is seen to have run, a
	// reading without its effect breaks the model.
	e := NewEffects(2, keys)
	e.Called("k", "a", false)
	if m := e.Observe(map[string]int{"a": 2}); len(m) > 0 {
		t.Fatal(m)
	}
	if m := e.Observe(map[string]int{}); len(m) != 1 || m[0].Expected != "a=2 b=0" {
		t.Errorf("after the effect was seen, an empty reading gave %v, want one mismatch expecting a=2 b=0", m)
	}
}

// StartStdio runs the test binary as the mutant over stdio, its state
// in a file (so that restarts keep it), and lists its tools; the server
// is stopped when the test ends. The package's external tests use it
// too.
func StartStdio(t *testing.T, mutant string) (*mcp.Stdio, []mcp.Tool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd, env := mcpserver.SelfCommand(mutant, filepath.Join(t.TempDir(), "state.json"))
	srv := &mcp.Stdio{Command: cmd, Env: env, Grace: time.Second}
	t.Cleanup(func() { srv.Close() })
	session, err := srv.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := session.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return srv, tools
}

// m9On runs M9 alone against one tool of a mutant over stdio.
func m9On(t *testing.T, mutant, tool string) Result {
	t.Helper()
	return m9With(t, mutant, tool, Settings{})
}

func m9With(t *testing.T, mutant, tool string, s Settings) Result {
	t.Helper()
	srv, tools := StartStdio(t, mutant)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	audited, _, err := Prepare(tools, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range audited {
		if a.Tool.Name == tool {
			return runOne(ctx, srv, a, M9, s)
		}
	}
	t.Fatalf("no tool %s", tool)
	return Result{}
}

// TestM9CatchesShrunk: M9 catches both lies it is meant for, and the
// evidence holds the failing sequence shrunk to a few steps, the last
// one broken.
func TestM9CatchesShrunk(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ mutant, tool string }{
		{"idempotent-appends", mcpserver.ToolPut},
		{"keyed-ignores-key", mcpserver.ToolCreate},
	} {
		t.Run(c.mutant, func(t *testing.T) {
			t.Parallel()
			r := m9On(t, c.mutant, c.tool)
			if r.Verdict.Status != check.FAIL {
				t.Fatalf("M9 on %s: %s (%s), want FAIL", c.tool, r.Verdict.Status, r.Verdict.Reason)
			}
			steps := r.Evidence.Steps
			if len(steps) == 0 || len(steps) > 3 {
				t.Fatalf("the counterexample has %d steps, want 1 to 3: %+v", len(steps), steps)
			}
			last := steps[len(steps)-1]
			if len(last.Broken) == 0 || last.Expected == "" || last.Observed == "" {
				t.Errorf("the last step shows no broken rule with what was expected and observed: %+v", last)
			}
			if !strings.Contains(strings.Join(r.Evidence.Notes, "\n"), "shrunk to") {
				t.Errorf("the notes do not say the sequence was shrunk: %q", r.Evidence.Notes)
			}
			inReports(t, r)
			t.Logf("%s in %s: %d steps: %+v; %v", c.mutant, r.Elapsed, len(steps), steps, r.Evidence.Notes)
		})
	}
}

// TestM9ReferencePasses: the reference keeps one effect per argument
// set and per key over several searches, each from its own random seed.
func TestM9ReferencePasses(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{mcpserver.ToolPut, mcpserver.ToolCreate} {
		t.Run(tool, func(t *testing.T) {
			t.Parallel()
			for range 3 {
				r := m9On(t, mcpserver.Reference, tool)
				if r.Verdict.Status != check.PASS {
					t.Fatalf("M9 on %s: %s (%s); %v", tool, r.Verdict.Status, r.Verdict.Reason, r.Evidence.Notes)
				}
				t.Logf("%s in %s: %v", tool, r.Elapsed, r.Evidence.Notes)
			}
		})
	}
}

// inReports: the shrunk sequence reaches the reports as P1's does: the
// Markdown and HTML reports show it step by step, the JSON report keeps
// the steps, JUnit the violation.
func inReports(t *testing.T, r Result) {
	t.Helper()
	rep := Report([]Result{r}, []Audited{{Tool: r.Tool}}, reports.Run{Complete: true}, reports.Meta{})
	for _, w := range []struct {
		name  string
		write func(io.Writer, reports.Report) error
		want  string
	}{
		{"markdown", reports.WriteMarkdown, "Counterexample, shrunk to"},
		{"html", reports.WriteHTML, "Counterexample"},
		{"json", reports.WriteJSON, `"steps"`},
		{"junit", reports.WriteJUnit, "shows other effects than one per argument set"},
	} {
		var b bytes.Buffer
		if err := w.write(&b, rep); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), w.want) {
			t.Errorf("the %s report lacks %q", w.name, w.want)
		}
	}
}

// TestM9TimeBound: a search whose time runs out stops calling and says
// so: with no sequence run, M9 skips, never passes nor errs.
func TestM9TimeBound(t *testing.T) {
	r := m9With(t, "idempotent-appends", mcpserver.ToolPut, Settings{PropertyTime: time.Nanosecond})
	if r.Verdict.Status != check.SKIP || !strings.Contains(strings.Join(r.Evidence.Notes, "\n"), "cut it short") {
		t.Errorf("M9 with no time: %s (%s), notes %q; want SKIP, the search cut short", r.Verdict.Status, r.Verdict.Reason, r.Evidence.Notes)
	}
	if len(r.Evidence.Tables[0].Rows) != 1 {
		t.Errorf("M9 with no time made %d calls, want the measuring call only", len(r.Evidence.Tables[0].Rows))
	}
}

// TestM9SeedDrawsTheSameSequences: from one seed, M9's search draws the
// same sequences again (what --seed and the replay line promise); from
// a random one, others.
func TestM9SeedDrawsTheSameSequences(t *testing.T) {
	p := &prop{tr: &trial{s: Settings{}}, keyed: true, restartable: true}
	draws := func(seed uint64) string {
		var plans []string
		tb := property.NewTB("idemspec-mcp-M9-seed-"+token(), io.Discard)
		err := property.Drive(tb, property.Knobs{Checks: rapidChecks, Seed: seed, ShrinkTime: DefaultPropertyTime}, func(rt *rapid.T) {
			if len(plans) < 10 {
				plans = append(plans, planKey(p.draw(rt)))
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(plans, "\n")
	}
	if a, b := draws(42), draws(42); a != b {
		t.Errorf("seed 42 drew\n%s\nthen\n%s", a, b)
	}
	if a, b := draws(0), draws(0); a == b {
		t.Errorf("two random seeds drew the same ten sequences:\n%s", a)
	}
}
