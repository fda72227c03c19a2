package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/reports"
)

// serverFilesystem is the second third-party MCP server the audit is
// tried on: the MCP project's filesystem server, from the npm registry,
// at the version .ci/run installs.
const (
	serverFilesystem        = "mcp-server-filesystem"
	serverFilesystemInstall = "apt-get install -y nodejs npm && npm install -g @modelcontextprotocol/server-filesystem@2026.8.31"
)

// TestMCPAuditOfServerFilesystemPassesOnlyWhatItSaw: audited with --cmd
// and no target file, the filesystem server's read tools get generated
// arguments that name files that do not exist (and read_text_file both
// head and tail, which it refuses): every call is a tool error. Such an
// M4 once passed, 9 read tools of 10; now it is ERROR saying no call was
// answered, a PASS stands only on an answered call, and the audit exits 2.
func TestMCPAuditOfServerFilesystemPassesOnlyWhatItSaw(t *testing.T) {
	t.Parallel()
	requireInstalled(t, serverFilesystem, serverFilesystemInstall)
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	os.Mkdir(root, 0o755)
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("hello\n"), 0o644)
	r := idemspec(t, "mcp", "--cmd", serverFilesystem+" "+root, "--report-dir", filepath.Join(dir, "report"))
	if r.code != 2 {
		t.Fatalf("exit %d, want 2 (checks that could not judge)\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	rep, err := reports.ReadJSON(filepath.Join(dir, "report", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	unanswered := 0
	for _, c := range rep.Checks {
		switch {
		case c.Verdict == check.PASS && c.ID != "M8" && !answeredCall(c):
			t.Errorf("%s PASS with no answered call in its evidence", c.Label())
		case c.ID == "M4" && c.Verdict == check.ERROR && strings.Contains(c.Reason, "was answered"):
			unanswered++
		}
	}
	if c := mcpCheck(t, rep, "M4", "list_allowed_directories"); c.Verdict != check.PASS {
		t.Errorf("M4 list_allowed_directories (no argument, answered): %s %s, want PASS", c.Verdict, c.Reason)
	}
	if c := mcpCheck(t, rep, "M4", "read_text_file"); c.Verdict != check.ERROR {
		t.Errorf("M4 read_text_file (head and tail, a missing file): %s, want ERROR", c.Verdict)
	}
	if unanswered < 8 {
		t.Errorf("%d read tools got M4 ERROR for no answered call, want at least 8 (the issue measured 9 vacuous PASSes)", unanswered)
	}
}

// answeredCall says whether a check's evidence holds an answered call of
// the tool it judged.
func answeredCall(c reports.CheckResult) bool {
	for _, tb := range c.Evidence.Tables {
		if !strings.HasPrefix(tb.Title, "calls to ") {
			continue
		}
		for _, row := range tb.Rows {
			if len(row) > 4 && row[2] == c.Subject && row[4] == "answered" {
				return true
			}
		}
	}
	return false
}
