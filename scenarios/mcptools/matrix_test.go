package mcptools_test

import (
	"context"
	"os"
	"path/filepath"
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
func audit(t *testing.T, srv mcptools.Server, tools []mcp.Tool) map[mcpserver.Catch]mcptools.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	audited, _, err := mcptools.Prepare(tools, mcptools.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[mcpserver.Catch]mcptools.Result{}
	for _, r := range mcptools.Run(ctx, srv, audited, mcptools.Settings{}) {
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
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cmd, env := mcpserver.SelfCommand(m.Name, filepath.Join(t.TempDir(), "state.json"))
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
			checkVerdicts(t, m, audit(t, srv, tools))
		})
	}
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
