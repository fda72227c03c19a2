package main_test

import (
	"fmt"
	"maps"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/idemspec/idemspec/harness/check"
)

// The TypeScript MCP example (examples/clients/typescript) as the agent a
// team ships: run unmodified, reading its server from its own variable
// (RECORDS_MCP_COMMAND or RECORDS_MCP_URL) and no IDEMSPEC_ one, it is
// judged through --mcp --target against the reference MCP server with
// the record tools (examples/mcp-records.yaml) run as a real one, behind
// idemspec's relay: over stdio and over streamable HTTP it passes C1-C7.
// Its --new-key-per-attempt twin, a fresh key on every call and none
// kept for a restart, fails C1 and C6, nothing else.
func TestClientMCPTargetJudgesTheTypeScriptExample(t *testing.T) {
	long(t)
	_, file, _, _ := runtime.Caller(0)
	tsClient := filepath.Join(filepath.Dir(file), "..", "..", "examples", "clients", "typescript", "dist", "client.js")
	requireBuilt(t, tsClient, tsExampleInstall)
	t.Parallel()
	for _, c := range []struct {
		name, flags, via, variable string
		fails                      []string
		code                       int
	}{
		{"stdio", "", "--mcp-command-env", "RECORDS_MCP_COMMAND", nil, 0},
		{"http", "", "--mcp-url-env", "RECORDS_MCP_URL", nil, 0},
		{"stdio/new-key-per-attempt", " --new-key-per-attempt", "--mcp-command-env", "RECORDS_MCP_COMMAND", []string{"C1", "C6"}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r, verdicts := clientVerdicts(t, "--slack", pythonSlack.String(), "--mcp", "--target", recordsServer(t), c.via, c.variable,
				"--cmd", "node "+tsClient+c.flags)
			want := map[string]check.Status{}
			for _, e := range clientChecks(false) {
				want[e.ID] = check.PASS
			}
			for _, id := range c.fails {
				want[id] = check.FAIL
			}
			if !maps.Equal(verdicts, want) || r.code != c.code {
				t.Errorf("exit %d, verdicts %v, want %d and %v\n%s", r.code, verdicts, c.code, want, r.stdout)
			}
		})
	}
}

// recordsServer is examples/mcp-records.yaml for the test: the reference
// MCP server with the record tools, its own process over stdio, its
// records in a file of the test's (a restart keeps them).
func recordsServer(t *testing.T) string {
	t.Helper()
	state := filepath.Join(t.TempDir(), "records.json")
	return writeFile(t, "records.yaml", fmt.Sprintf("name: records\nmcp:\n  command: %s serve --mcp --records --state %s\n", binary, state))
}
