package mcpserver

import (
	"fmt"
	"sort"

	"github.com/idemspec/idemspec/harness/check"
)

// Designed is what the audit must say of the reference, tool by tool:
// PASS for each claim it keeps, WARN (M8) for the one tool an agent
// cannot retry safely, append_log. Exactly these, no more.
var Designed = map[Catch]check.Status{
	{"M8", ToolAppend}: check.WARN,
	{"M5", ToolCreate}: check.PASS, {"M6", ToolCreate}: check.PASS, {"M7", ToolCreate}: check.PASS, {"M8", ToolCreate}: check.PASS, {"M9", ToolCreate}: check.PASS,
	{"M4", ToolGet}: check.PASS, {"M8", ToolGet}: check.PASS,
	{"M4", ToolList}: check.PASS, {"M8", ToolList}: check.PASS,
	{"M1", ToolPut}: check.PASS, {"M2", ToolPut}: check.PASS, {"M3", ToolPut}: check.PASS, {"M8", ToolPut}: check.PASS, {"M9", ToolPut}: check.PASS,
}

// Mismatches says how an audit's verdicts differ from what m must get:
// every Catch a FAIL (WARN for M8, a SHOULD), every other verdict as
// Designed says. A check that no longer concerns the tool the mutant
// changed (its claim dropped) may be missing.
func Mismatches(m Mutant, got map[Catch]check.Status) []string {
	want := map[Catch]check.Status{}
	for c, s := range Designed {
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
