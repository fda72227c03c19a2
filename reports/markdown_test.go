package reports_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/reports"
)

func markdownOf(t *testing.T, r reports.Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := reports.WriteMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// section returns the text from the heading that contains title to the
// next heading of level 2.
func section(md, title string) string {
	i := strings.Index(md, title)
	if i < 0 {
		return ""
	}
	rest := md[i:]
	if j := strings.Index(rest, "\n## "); j >= 0 {
		return rest[:j]
	}
	return rest
}

// unescapedPipes counts the column separators of a table row.
func unescapedPipes(row string) int {
	return strings.Count(row, "|") - strings.Count(row, `\|`)
}

func TestMarkdownSummaryTableHasEveryCheck(t *testing.T) {
	md := markdownOf(t, syntheticReport())
	for _, row := range []string{"| S1 | ✅ PASS | MUST |", "| ⏭️ SKIP | MUST |", "| 💥 ERROR | MAY |", "⚠️ WARN | SHOULD |"} {
		if !strings.Contains(md, row) {
			t.Errorf("summary table lacks %q", row)
		}
	}
	if !strings.Contains(md, "**❌ FAIL**: 2 of 6 checks failed, with 1 warning (6 checks: 1 pass, 2 fail, 1 warn, 1 skip, 1 error)") {
		t.Errorf("no overall verdict line:\n%s", md[:300])
	}
	if !strings.Contains(md, "`r1a2b3c4`, seed `4242`") {
		t.Error("run id and seed missing")
	}
	// Every row of every table has as many columns as its header.
	var want int
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			want = 0
			continue
		}
		if want == 0 {
			want = unescapedPipes(line)
		} else if got := unescapedPipes(line); got != want {
			t.Errorf("table row has %d separators, its header %d: %s", got, want, line)
		}
	}
}

func TestMarkdownFindingsOnlyForFailWarnError(t *testing.T) {
	md := markdownOf(t, syntheticReport())
	for _, h := range []string{"## ❌ S2 FAIL:", "## ❌ S4 FAIL:", "## ⚠️ K3 WARN:", "## 💥 T9 ERROR:"} {
		if !strings.Contains(md, h) {
			t.Errorf("no finding section %q", h)
		}
	}
	for _, h := range []string{"## ✅ S1", "## ⏭️ S5a"} {
		if strings.Contains(md, h) {
			t.Errorf("a section %q for a check that did not fail", h)
		}
	}
	if !strings.Contains(md, "- **S5a**: the target declares no restart hook") {
		t.Error("the skip reason is missing")
	}
	s2 := section(md, "## ❌ S2 FAIL")
	for _, want := range []string{
		"- the retry created a second resource", "  - expected: res\\_a", "  - observed: res\\_b", "  - exchanges: #1, #2",
		"- fault: response-loss on the faulty lane", "- oracle: 2 resources carry marker idemspec-r1-S2-2 (after the retries, list oracle)",
		"<details><summary>History: 3 exchanges</summary>",
		"| 1 | first (answer lost) | faulty (response-loss) | `…2b4d-4e6f-8a…` | `68d615b879ce` | no answer, maybe applied: timeout awaiting answer |",
	} {
		if !strings.Contains(s2, want) {
			t.Errorf("S2 finding lacks %q:\n%s", want, s2)
		}
	}
}

func TestMarkdownLinksFindingsByGitHubAnchor(t *testing.T) {
	md := markdownOf(t, syntheticReport())
	link := "[S2](#-s2-fail-should-replay-the-original-result-to-a-retry-whose-first-response-was-lost)"
	if !strings.Contains(md, link) {
		t.Errorf("summary row of S2 does not link its finding with %s", link)
	}
}

func TestMarkdownMermaidDiagram(t *testing.T) {
	md := markdownOf(t, syntheticReport())
	s2 := section(md, "## ❌ S2 FAIL")
	diagram := regexp.MustCompile("(?s)```mermaid\n(.*?)```").FindStringSubmatch(s2)
	if diagram == nil {
		t.Fatalf("S2 has no mermaid block:\n%s", s2)
	}
	d := diagram[1]
	for _, want := range []string{
		"sequenceDiagram\n", "participant C as Client", "participant P1 as Proxy (faulty lane)",
		"participant P2 as Proxy (clean lane)", "participant S as Server",
		"C->>P1: 1. first (answer lost) (key …3e4f5a6b)", "Note over P1: fault: response-loss",
		"P1--xC: no answer (maybe applied)", "C->>P2: 2. retry (key …3e4f5a6b)", "S-->>C: 201 res_b",
		"Note over C,S: oracle: 2 resources carry marker idemspec-r1-S2-2",
	} {
		if !strings.Contains(d, want) {
			t.Errorf("diagram lacks %q:\n%s", want, d)
		}
	}

	// A burst of 24 is capped, with the gap said.
	s4 := section(md, "## ❌ S4 FAIL")
	d4 := regexp.MustCompile("(?s)```mermaid\n(.*?)```").FindStringSubmatch(s4)[1]
	if n := strings.Count(d4, "C->>"); n != 10 {
		t.Errorf("burst diagram draws %d exchanges, want the cap of 10:\n%s", n, d4)
	}
	if !strings.Contains(d4, "Note over C,S: 14 more exchanges not shown") || !strings.Contains(d4, "burst of 24 same-key requests released together") {
		t.Errorf("burst diagram does not say what it left out:\n%s", d4)
	}

	// Hostile text cannot end a Mermaid statement or start an entity.
	k3 := section(md, "## ⚠️ K3 WARN")
	dk := regexp.MustCompile("(?s)```mermaid\n(.*?)```").FindStringSubmatch(k3)[1]
	for _, line := range strings.Split(dk, "\n") {
		if strings.ContainsAny(line, ";#") {
			t.Errorf("diagram line carries ';' or '#': %q", line)
		}
	}
	if !strings.Contains(dk, "1. no key, step no. 1 (key (none))") {
		t.Errorf("diagram label not sanitised as expected:\n%s", dk)
	}
}

func TestMarkdownEscapesTargetText(t *testing.T) {
	md := markdownOf(t, syntheticReport())
	if strings.Contains(md, "<script>") {
		t.Error("raw <script> from the target's answer reached the Markdown")
	}
	if !strings.Contains(md, "- a request without a key was accepted &lt;script&gt;alert(1)&lt;/script&gt; | a;b #c \\`d\\` \\*e\\*") {
		t.Errorf("hostile text not escaped as expected:\n%s", section(md, "## ⚠️ K3"))
	}
}

func TestMarkdownIncompleteRun(t *testing.T) {
	r := syntheticReport()
	r.Run.Complete, r.Run.Incomplete = false, "Interrupted by User"
	md := markdownOf(t, r)
	if !strings.Contains(md, "> This run is incomplete (Interrupted by User): it holds only the checks that finished.") {
		t.Errorf("incomplete run not flagged:\n%s", md[:600])
	}
	if !strings.Contains(md, "**incomplete**") {
		t.Error("run row does not say incomplete")
	}
}

// A report read back from a file may carry anything in its check id,
// verdict and level: report.md and compare.md keep every row one row
// with its columns, and the text stays text.
func TestMarkdownEscapesIDVerdictAndLevel(t *testing.T) {
	r := syntheticReport()
	r.Checks[0].ID = "S1|x\n## injected [link](http://evil)"
	r.Checks[0].Level = "MUST\n| injected |"
	r.Checks[1].Verdict = "FAIL|\nx"
	var cmp bytes.Buffer
	if err := reports.WriteCompareMarkdown(&cmp, reports.Compare([]reports.Report{r})); err != nil {
		t.Fatal(err)
	}
	for name, md := range map[string]string{"report.md": markdownOf(t, r), "compare.md": cmp.String()} {
		if strings.Contains(md, "\n## injected") || strings.Contains(md, "\n| injected |") || strings.Contains(md, "[link](") {
			t.Errorf("%s: the id or level escaped its cell:\n%s", name, md)
		}
		var want int
		for _, line := range strings.Split(md, "\n") {
			if strings.HasPrefix(line, "|---") {
				want = strings.Count(line, "|")
				continue
			}
			if want > 0 && strings.HasPrefix(line, "|") && unescapedPipes(line) != want {
				t.Errorf("%s: row %q has %d separators, the table %d", name, line, unescapedPipes(line), want)
			}
			if !strings.HasPrefix(line, "|") {
				want = 0
			}
		}
	}
}
