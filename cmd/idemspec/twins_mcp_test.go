package main_test

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/idemspec/idemspec/fakes/mcpserver"
)

// TestMCPTwinsReadOnlyTheirVariable runs the twin of the reference
// client over MCP (`idemspec agent --mcp --mcp-url-env MCP_URL`) against
// the record tools of the reference MCP server, every IDEMSPEC_
// variable pointing elsewhere: one record with its own arguments, and a
// second run in the same directory makes none; the memory-state twin's
// second run makes a second (its mutant's C6).
func TestMCPTwinsReadOnlyTheirVariable(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		bug     string
		records int // after two runs
	}{{"reference", 1}, {"memory-state", 2}} {
		t.Run(c.bug, func(t *testing.T) {
			t.Parallel()
			statePath := filepath.Join(t.TempDir(), "mcp.json")
			srv, err := mcpserver.New(mcpserver.Options{StatePath: statePath, Records: true})
			if err != nil {
				t.Fatal(err)
			}
			hs := httptest.NewServer(srv.Handler())
			t.Cleanup(hs.Close)
			dir, poison := t.TempDir(), t.TempDir()
			env := append(twinEnv("http://127.0.0.1:9", poison), "MCP_URL="+hs.URL)
			argv := append([]string{binary, "agent", "--mcp", "--mcp-url-env", "MCP_URL", "--bug", c.bug}, twinBounds...)
			var ids []string
			for range 2 {
				r := runTwin(t, dir, env, argv)
				if r.code != 0 || r.state != "SUCCEEDED" {
					t.Fatalf("want SUCCEEDED, exit 0\nexit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
				}
				ids = append(ids, r.resourceID)
			}
			b, err := os.ReadFile(statePath)
			if err != nil {
				t.Fatal(err)
			}
			var st mcpserver.State
			if err := json.Unmarshal(b, &st); err != nil {
				t.Fatal(err)
			}
			if len(st.Records) != c.records || st.Records[0].Marker != "invoice 1042" || st.Records[0].Amount != 4200 {
				t.Fatalf("want %d records of its own arguments, have %+v", c.records, st.Records)
			}
			if c.records == 1 && ids[0] != ids[1] {
				t.Fatalf("the second run answered %s, the first %s", ids[1], ids[0])
			}
			if kept, _ := os.ReadDir(poison); len(kept) > 0 {
				t.Fatalf("wrote in IDEMSPEC_STATE_DIR: %v", kept)
			}
		})
	}
}
