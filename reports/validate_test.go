package reports_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/reports"
)

// An interrupted MCP audit writes NOT AUDITED tools: its own report
// reads back (to re-render or merge it), and a forged tool verdict does
// not.
func TestToolVerdictsReadBack(t *testing.T) {
	for _, c := range []struct {
		verdict string
		refused bool
	}{
		{string(reports.NotAudited), false},
		{"PASS", false},
		{"", false},
		{"LOL", true},
	} {
		r := syntheticReport()
		r.Tools = []reports.ToolRow{{Tool: "put_note", Verdict: check.Status(c.verdict), Verdicts: "M1 not run"}}
		path := filepath.Join(t.TempDir(), "report.json")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := reports.WriteJSON(f, r); err != nil {
			t.Fatal(err)
		}
		f.Close()
		_, err = reports.ReadJSON(path)
		if refused := err != nil; refused != c.refused {
			t.Errorf("tool verdict %q: read back with %v, want refused=%v", c.verdict, err, c.refused)
		}
		if err != nil && !strings.Contains(err.Error(), "tools[0].verdict") {
			t.Errorf("tool verdict %q: the error %q does not name the field", c.verdict, err)
		}
	}
}
