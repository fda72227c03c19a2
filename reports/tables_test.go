package reports_test

import (
	"strings"
	"testing"

	"github.com/idemspec/idemspec/harness/check"
)

// Evidence tables (K3's "which variations are the same request") must
// reach the reader in both human formats.
func TestEvidenceTablesAreRendered(t *testing.T) {
	r := syntheticReport()
	r.Checks[0].Verdict = check.WARN
	r.Checks[0].Evidence.Tables = []check.Table{{
		Title:   "Which variations are the same request",
		Columns: []string{"variation", "treated as"},
		Rows:    [][]string{{"reordered JSON members", "another request (refused)"}, {"added header", "the same request | replayed"}},
	}}
	md := markdownOf(t, r)
	for _, want := range []string{"**Which variations are the same request**", "| variation | treated as |", `| added header | the same request \| replayed |`} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	_, raw := page(t, r)
	for _, want := range []string{"<th>variation</th>", "<td>reordered JSON members</td>", "<td>the same request | replayed</td>"} {
		if !strings.Contains(raw, want) {
			t.Errorf("html lacks %q", want)
		}
	}
}
