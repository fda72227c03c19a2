package mcptools_test

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/idemspec/idemspec/fakes/mcpserver"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/scenarios/mcptools"
	"github.com/idemspec/idemspec/targets/mcp"
)

func TestMain(m *testing.M) {
	mcpserver.ServeIfAsked()
	os.Exit(m.Run())
}

// audit runs the whole audit against srv and returns its verdicts.
func audit(t *testing.T, srv mcptools.Server, tools []mcp.Tool, s mcptools.Settings) map[mcpserver.Catch]mcptools.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	audited, _, err := mcptools.Prepare(tools, s)
	if err != nil {
		t.Fatal(err)
	}
	got := map[mcpserver.Catch]mcptools.Result{}
	for _, r := range mcptools.Run(ctx, srv, audited, s) {
		got[mcpserver.Catch{Check: r.Check.ID, Tool: r.Tool.Name}] = r
	}
	return got
}

// TestStdioMatrix is the detection matrix over stdio: the reference gets
// exactly the designed PASS and WARN verdicts, and every mutant fails
// the checks it names, on the tool it names, and nothing else.
func TestStdioMatrix(t *testing.T) {
	for _, m := range append([]mcpserver.Mutant{{Name: mcpserver.Reference}}, mcpserver.Mutants()...) {
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			srv, tools := mcptools.StartStdio(t, m.Name)
			checkVerdicts(t, m, audit(t, srv, tools, settingsFor(m)))
		})
	}
}

// settingsFor is the audit's default settings for the reference and the
// mutants M9 must catch; for the others, whose lie M9 is not meant for
// (or lies in a tool it does not call), M9 searches one sequence only:
// its PASS is still judged, and the matrix stays quick.
func settingsFor(m mcpserver.Mutant) mcptools.Settings {
	if m.Name == mcpserver.Reference || slices.ContainsFunc(m.Catches, func(c mcpserver.Catch) bool { return c.Check == "M9" }) {
		return mcptools.Settings{}
	}
	return mcptools.Settings{Sequences: 1}
}

func checkVerdicts(t *testing.T, m mcpserver.Mutant, results map[mcpserver.Catch]mcptools.Result) {
	t.Helper()
	got := map[mcpserver.Catch]check.Status{}
	for c, r := range results {
		got[c] = r.Verdict.Status
	}
	for _, problem := range mcpserver.Mismatches(m, got) {
		t.Error(problem)
	}
	if t.Failed() {
		for c, r := range results {
			t.Logf("%s %s: %s %s", c.Check, c.Tool, r.Verdict.Status, r.Verdict.Reason)
		}
	}
}
