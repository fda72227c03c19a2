package mcpserver

import (
	"fmt"
	"sort"

	"github.com/idemspec/idemspec/harness/check"
)

// Findings is what the audit must find wanting in the reference: the
// one tool an agent cannot retry safely, append_log (M8, a SHOULD:
// WARN). Every other check that concerns one of its tools, as the
// audit's registry says, passes.
var Findings = map[Catch]check.Status{{"M8", ToolAppend}: check.WARN}

// Mismatches says how an audit's verdicts differ from what m must get:
// every check that concerns a tool of the reference (concerned, check
// IDs by tool, from the audit's registry) passes, but for the reference's Findings and the
// mutant's Catches, each a FAIL (WARN for M8, a SHOULD). A check that no
// longer concerns the tool the mutant changed (its claim dropped) may be
// missing.
func Mismatches(m Mutant, concerned map[string][]string, got map[Catch]check.Status) []string {
	want := map[Catch]check.Status{}
	for tool, ids := range concerned {
		for _, id := range ids {
			want[Catch{id, tool}] = check.PASS
		}
	}
	for c, s := range Findings {
		want[c] = s
	}
	caught := map[Catch]bool{}
	for _, c := range m.Catches {
		want[c] = check.FAIL
		if c.Check == "M8" {
			want[c] = check.WARN
		}
		caught[c] = true
	}
	var out []string
	for c, w := range want {
		g, ok := got[c]
		switch {
		case !ok && !caught[c] && touches(m, c.Tool):
		case !ok:
			out = append(out, fmt.Sprintf("%s on %s: no verdict, want %s", c.Check, c.Tool, w))
		case g != w:
			out = append(out, fmt.Sprintf("%s on %s: %s, want %s", c.Check, c.Tool, g, w))
		}
	}
	for c, g := range got {
		if _, ok := want[c]; !ok {
			out = append(out, fmt.Sprintf("%s on %s: %s, but no verdict was designed", c.Check, c.Tool, g))
		}
	}
	sort.Strings(out)
	return out
}

func touches(m Mutant, tool string) bool {
	for _, c := range m.Catches {
		if c.Tool == tool {
			return true
		}
	}
	return false
}
