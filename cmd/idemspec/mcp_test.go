package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/fakes/mcpserver"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/reports"
)

// TestMCPAuditOfTheReference is the promise end to end:
// `idemspec mcp --cmd "idemspec serve --mcp"` gives exactly the designed
// PASS and WARN verdicts, exit 0, and the four reports with the per-tool
// table; a mutant exits 1 with its check failed on its tool.
func TestMCPAuditOfTheReference(t *testing.T) {
	for _, c := range []struct {
		mutant string
		code   int
	}{{mcpserver.Reference, 0}, {"keyed-races", 1}} {
		t.Run(c.mutant, func(t *testing.T) {
			dir := t.TempDir()
			state := filepath.Join(dir, "state.json")
			r := idemspec(t, "mcp", "--cmd", binary+" serve --mcp --mutant "+c.mutant+" --state "+state, "--report-dir", dir)
			if r.code != c.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, c.code, r.stdout, r.stderr)
			}
			rep, err := reports.ReadJSON(filepath.Join(dir, "report.json"))
			if err != nil {
				t.Fatal(err)
			}
			got := map[mcpserver.Catch]check.Status{}
			for _, ch := range rep.Checks {
				got[mcpserver.Catch{Check: ch.ID, Tool: ch.Subject}] = ch.Verdict
			}
			m, _ := mcpserver.LookupMutant(c.mutant)
			for _, problem := range mcpserver.Mismatches(m, got) {
				t.Error(problem)
			}
			if len(rep.Tools) != 5 {
				t.Errorf("the per-tool table has %d rows, want 5", len(rep.Tools))
			}
			md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
			html, _ := os.ReadFile(filepath.Join(dir, "report.html"))
			for _, want := range []string{"## Tools", "| `append_log` |", "not retry-safe"} {
				if !strings.Contains(string(md), want) {
					t.Errorf("report.md lacks %q", want)
				}
			}
			if !strings.Contains(string(html), `id="tools"`) {
				t.Error("report.html has no per-tool table")
			}
			if _, err := os.Stat(filepath.Join(dir, "junit.xml")); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestMCPBadInput: errors name the flag or the file and field.
func TestMCPBadInput(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("name: x\nmcp:\n  comand: foo\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp"}, "give --cmd or --target"},
		{[]string{"mcp", "--target", bad}, "line 3: field comand not found"},
		{[]string{"mcp", "--cmd", binary + " serve --mcp", "--oracle", "nope", "--dry-run"}, `oracle: tool: the server has no tool "nope"`},
	} {
		r := idemspec(t, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Contains(r.stderr, "goroutine") {
			t.Errorf("idemspec %v: exit %d, stderr %q; want exit 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
}
