package main_test

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/harness/check"
)

// notesServer is an mcp: target file for the reference MCP server run as
// a real one (its own process over stdio, its state in a file of the
// test's): create_note's key is request_id, list_notes the oracle.
func notesServer(t *testing.T, extra string) string {
	t.Helper()
	dir := t.TempDir()
	return writeFile(t, "notes.yaml", fmt.Sprintf(`name: notes
mcp:
  command: %s serve --mcp --state %s
oracle: {tool: list_notes}
tools:
  create_note: {key: request_id}
%s`, binary, filepath.Join(dir, "notes.json"), extra))
}

// noteAgent is the test agent making one note, keyed by its own key.
func noteAgent(mode string) string {
	return testAgent(mode, "create_note", `{"request_id":"{{KEY}}","text":"hello"}`, "list_notes")
}

// clientVerdicts runs client mode and returns its verdicts by check.
func clientVerdicts(t *testing.T, args ...string) (result, map[string]check.Status) {
	t.Helper()
	r := client(t, append([]string{"--deadline", "5s", "--slack", agentSlack.String()}, args...)...)
	verdicts := map[string]check.Status{}
	for _, c := range r.report.Checks {
		verdicts[c.ID] = c.Verdict
	}
	return r, verdicts
}

// An unmodified MCP client, reading its server from its own variable and
// keeping its key in its working directory, is judged against a real MCP
// server through the relay: over stdio and over streamable HTTP it
// passes C1-C7; the mutant that draws a new key for every attempt fails
// C1 (and, sending it without a look-up, warns C5), nothing else.
func TestClientMCPTargetJudgesAnUnmodifiedAgent(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, mode, via string
		want            map[string]check.Status
		code            int
	}{
		{"stdio/correct", "correct", "--mcp-command-env", nil, 0},
		{"http/correct", "correct", "--mcp-url-env", nil, 0},
		{"stdio/mint", "mint", "--mcp-command-env", map[string]check.Status{"C1": check.FAIL}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			name := "AGENT_MCP_SERVER"
			if c.via == "--mcp-url-env" {
				name = "AGENT_MCP_URL"
			}
			r, verdicts := clientVerdicts(t, "--mcp", "--target", notesServer(t, ""), c.via, name, "--cmd", noteAgent(c.mode))
			for _, e := range clientChecks(false) {
				want := check.PASS
				if w, ok := c.want[e.ID]; ok {
					want = w
				}
				if got := verdicts[e.ID]; got != want {
					t.Errorf("%s = %s, want %s\n%s", e.ID, got, want, r.stdout)
				}
			}
			if r.code != c.code {
				t.Errorf("exit %d, want %d\n%s", r.code, c.code, r.stdout)
			}
			// C7's fault line names who refused: the relay, not the server.
			for _, k := range r.report.Checks {
				if k.ID == "C7" && !slices.ContainsFunc(k.Evidence.Faults, func(f string) bool {
					return strings.HasPrefix(f, "every create refused 422 by idemspec's relay")
				}) {
					t.Errorf("C7's faults %q do not say idemspec's relay refused the creates", k.Evidence.Faults)
				}
			}
		})
	}
}

// An unmodified agent over MCP that prints no result line is judged as
// over HTTP --target: by --exit-codes when given (C4 PASS: its exit 0
// means SUCCEEDED), else C4 is SKIP saying --exit-codes maps no state,
// never a FAIL for a result it was never asked to print.
func TestClientMCPTargetExitCodes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		codes  []string
		want   check.Status
		reason string
		exit   int // 2 when nothing was verified
	}{
		{"without", nil, check.SKIP, "--exit-codes maps no state to its exit code", 2},
		{"with", []string{"--exit-codes", "0=SUCCEEDED,1=FAILED,3=UNKNOWN_RESULT"}, check.PASS, "", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"--mcp", "--target", notesServer(t, ""), "--mcp-command-env", "AGENT_MCP_SERVER", "--cmd", noteAgent("quiet"), "--label-filter", "C4"}, c.codes...)
			r, verdicts := clientVerdicts(t, args...)
			if verdicts["C4"] != c.want || r.code != c.exit {
				t.Fatalf("exit %d, C4 %s, want %d and %s\n%s%s", r.code, verdicts["C4"], c.exit, c.want, r.stdout, r.stderr)
			}
			for _, k := range r.report.Checks {
				if k.ID == "C4" && !strings.Contains(k.Reason, c.reason) {
					t.Errorf("C4's reason %q does not say %q", k.Reason, c.reason)
				}
			}
		})
	}
}

// A program that makes no tool call (it never reads the variable the
// relay is in) is not judged: every check is ERROR, saying so.
func TestClientMCPTargetNoCallIsError(t *testing.T) {
	t.Parallel()
	r, verdicts := clientVerdicts(t, "--mcp", "--target", notesServer(t, ""), "--mcp-command-env", "SOME_OTHER_NAME", "--cmd", noteAgent("correct"), "--label-filter", "C1")
	if verdicts["C1"] != check.ERROR || r.code != 2 || !strings.Contains(r.stdout, "made no tool call") {
		t.Errorf("exit %d, verdicts %v, want C1 ERROR and exit 2 saying no tool call\n%s", r.code, verdicts, r.stdout)
	}
}

// Bad input exits 2 with a line that says what and where, never a
// stack: a key the tool's schema lacks (file, line, field), an oracle
// that is not a read-only tool, flags that do not go together.
func TestClientMCPTargetBadInput(t *testing.T) {
	t.Parallel()
	badKey := notesServer(t, "  put_note: {key: request_idd}\n")
	badOracle := writeFile(t, "put.yaml", fmt.Sprintf("mcp:\n  command: %s serve --mcp\noracle: {tool: put_note}\n", binary))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"client", "--mcp", "--target", badKey, "--mcp-command-env", "X", "--cmd", "true"}, badKey + ":7: tools.put_note.key: \"request_idd\" is not a property of the tool's input schema"},
		{[]string{"client", "--mcp", "--target", badOracle, "--mcp-command-env", "X", "--cmd", "true"}, "oracle.tool: put_note is not declared read-only"},
		{[]string{"client", "--mcp", "--target", badKey, "--cmd", "true"}, "give --mcp-command-env NAME"},
		{[]string{"client", "--mcp", "--mcp-url-env", "X", "--cmd", "true"}, "need --target FILE"},
		{[]string{"client", "--target", badKey, "--mcp-url-env", "X", "--cmd", "true"}, "go with --mcp"},
		{[]string{"client", "--mcp", "--target", badKey, "--mcp-url-env", "1X", "--cmd", "true"}, `"1X": not a variable name`},
	} {
		r := idemspec(t, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Contains(r.stderr, "goroutine") {
			t.Errorf("idemspec %v: exit %d, stderr %q, want 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// The npm memory server, a real third-party MCP server: its
// create_entities takes no key argument (C1 SKIP, saying so) and
// filters out the entities the graph holds, so an agent that resends
// the same entity makes one; read_graph is the oracle.
func TestClientMCPTargetOfServerMemory(t *testing.T) {
	requireInstalled(t, serverMemory, serverMemoryInstall)
	t.Parallel()
	dir := t.TempDir()
	file := writeFile(t, "memory.yaml", fmt.Sprintf(`name: server-memory
mcp:
  command: %s
  env: {MEMORY_FILE_PATH: %q}
oracle: {tool: read_graph}
`, serverMemory, filepath.Join(dir, "memory.jsonl")))
	agent := testAgent("correct", "create_entities", `{"entities":[{"name":"{{KEY}}","entityType":"agent-test","observations":["made once"]}]}`, "read_graph")
	r, verdicts := clientVerdicts(t, "--mcp", "--target", file, "--mcp-command-env", "AGENT_MCP_SERVER", "--cmd", agent)
	want := map[string]check.Status{"C1": check.SKIP, "C2": check.PASS, "C3": check.PASS, "C4": check.PASS, "C5": check.PASS, "C6": check.PASS, "C7": check.PASS}
	if !maps.Equal(verdicts, want) || r.code != 0 {
		t.Errorf("exit %d, verdicts %v, want 0 and %v\n%s", r.code, verdicts, want, r.stdout)
	}
	for _, c := range r.report.Checks {
		if c.ID == "C1" && !strings.Contains(c.Reason, "takes no key argument") {
			t.Errorf("C1's skip says %q, not that the tool takes no key argument", c.Reason)
		}
	}
}
