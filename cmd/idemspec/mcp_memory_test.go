package main_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/reports"
	"github.com/idemspec/idemspec/targets/mcp"
)

// serverMemory is the third-party MCP server the audit is tried on: the
// knowledge-graph memory server of the MCP project, from the npm
// registry, at the version .ci/run installs.
const (
	serverMemory        = "mcp-server-memory"
	serverMemoryInstall = "apt-get install -y nodejs npm && npm install -g @modelcontextprotocol/server-memory@2026.8.31"
)

// memoryFile is the target file of the audit: the graph kept in a file
// of the test's, read_graph as the oracle, templates for the tools whose
// arguments are arrays, and the deletes left uncalled (their effect is
// an absence, which counting a fresh marker cannot show).
func memoryFile(dir string) string {
	return fmt.Sprintf(`name: server-memory
mcp:
  command: %s
  env: {MEMORY_FILE_PATH: %q}
oracle: {tool: read_graph}
tools:
  create_entities:
    args: '{"entities": [{"name": "{{.Marker}}", "entityType": "idemspec", "observations": ["seen {{.Marker}}"]}]}'
  open_nodes:
    args: '{"names": ["{{.Marker}}"]}'
  delete_entities: {skip: "its effect is an absence: a fresh marker's count cannot show it"}
  delete_observations: {skip: "its effect is an absence: a fresh marker's count cannot show it"}
  delete_relations: {skip: "its effect is an absence: a fresh marker's count cannot show it"}
`, serverMemory, filepath.Join(dir, "memory.jsonl"))
}

// TestMCPAuditOfServerMemory audits @modelcontextprotocol/server-memory
// and asserts what reading its source (index.ts of that version) says:
// the three reads are declared read-only and only load the graph (M4
// PASS); the three deletes are declared idempotent and destructive (M8
// PASS; their M1-M3 and M9 skipped, as the file says why); create_entities,
// create_relations and add_observations declare idempotentHint false and
// take no key, so no agent may retry them (M8 WARN), although each
// filters out what the graph already holds.
func TestMCPAuditOfServerMemory(t *testing.T) {
	t.Parallel()
	requireInstalled(t, serverMemory, serverMemoryInstall)
	dir := t.TempDir()
	file := filepath.Join(dir, "memory.yaml")
	os.WriteFile(file, []byte(memoryFile(dir)), 0o644)
	r := idemspec(t, "mcp", "--target", file, "--report-dir", dir)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0 (WARNs pass)\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	want := map[string]check.Status{
		"M8 create_entities": check.WARN, "M8 create_relations": check.WARN, "M8 add_observations": check.WARN,
		"M4 read_graph": check.PASS, "M8 read_graph": check.PASS,
		"M4 search_nodes": check.PASS, "M8 search_nodes": check.PASS,
		"M4 open_nodes": check.PASS, "M8 open_nodes": check.PASS,
	}
	for _, del := range []string{"delete_entities", "delete_observations", "delete_relations"} {
		want["M8 "+del] = check.PASS
		for _, id := range []string{"M1", "M2", "M3", "M9"} {
			want[id+" "+del] = check.SKIP
		}
	}
	rep, err := reports.ReadJSON(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]check.Status{}
	for _, c := range rep.Checks {
		got[c.ID+" "+c.Subject] = c.Verdict
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %s, want %s", k, got[k], w)
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: %s, but no verdict was expected", k, g)
		}
	}
}

// TestServerMemoryCreatesAreIdempotentInEffect: what the source shows
// and the WARN above does not say. create_entities called again with the
// same arguments adds nothing (it skips names the graph holds), nor does
// add_observations: the tools could declare idempotentHint true.
func TestServerMemoryCreatesAreIdempotentInEffect(t *testing.T) {
	requireInstalled(t, serverMemory, serverMemoryInstall)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	srv := &mcp.Stdio{Command: serverMemory, Env: []string{"MEMORY_FILE_PATH=" + filepath.Join(t.TempDir(), "memory.jsonl")}}
	defer srv.Close()
	session, err := srv.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	entity := map[string]any{"entities": []any{map[string]any{"name": "idm-e", "entityType": "t", "observations": []any{}}}}
	seen := map[string]any{"observations": []any{map[string]any{"entityName": "idm-e", "contents": []any{"idm-o"}}}}
	// In order: an observation needs its entity.
	calls := []struct {
		tool string
		args map[string]any
	}{{"create_entities", entity}, {"add_observations", seen}}
	for range 3 {
		for _, c := range calls {
			if a, err := session.Call(ctx, c.tool, c.args); err != nil || a.IsError {
				t.Fatalf("%s: %+v, %v", c.tool, a, err)
			}
		}
	}
	graph, err := session.Call(ctx, "read_graph", nil)
	if err != nil {
		t.Fatal(err)
	}
	if e, o := strings.Count(graph.Content(), `"name":"idm-e"`), strings.Count(graph.Content(), "idm-o"); e != 1 || o != 1 {
		t.Errorf("after three rounds the graph holds the entity %d times and the observation %d times, want 1 and 1: %s", e, o, graph.Content())
	}
}
