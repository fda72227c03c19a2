package scenarios

import (
	"encoding/json"
	"strings"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/mcprelay"
)

// Judging an unmodified agent against a real MCP server, where its
// arguments carry no marker: what one run makes is learnt from a
// baseline run without faults, and a trial's effects are counted the
// same way, from the file's oracle tool (the items its answer gained)
// or, without one, from the answers of the operation's calls. These are
// pure: they read what was recorded.

// OracleItems are the items of an oracle tool's answer: the elements of
// its top-level arrays (of the answer itself when it is an array), each
// as canonical JSON; an answer that is not JSON is its non-empty lines.
func OracleItems(content string) []string {
	var v any
	if json.Unmarshal([]byte(content), &v) != nil {
		var out []string
		for _, l := range strings.Split(content, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				out = append(out, l)
			}
		}
		return out
	}
	var arrays [][]any
	switch x := v.(type) {
	case []any:
		arrays = append(arrays, x)
	case map[string]any:
		for _, m := range x {
			if a, ok := m.([]any); ok {
				arrays = append(arrays, a)
			}
		}
	}
	var out []string
	for _, a := range arrays {
		for _, e := range a {
			b, _ := json.Marshal(e) // maps marshal with sorted keys
			out = append(out, string(b))
		}
	}
	return out
}

// NewItems is how many items after holds that before did not (as
// multisets: a second equal item is a new one).
func NewItems(before, after []string) int {
	had := map[string]int{}
	for _, s := range before {
		had[s]++
	}
	n := 0
	for _, s := range after {
		if had[s] > 0 {
			had[s]--
			continue
		}
		n++
	}
	return n
}

// AnswerEffects counts the distinct successful answers the server gave
// to calls of tool, the dropped ones included: a replay of one key
// answers the same, a second execution answers anew.
func AnswerEffects(calls []mcprelay.Call, tool string) int {
	seen := map[string]bool{}
	for _, c := range calls {
		if c.Tool == tool && c.Answered && !c.IsError && !c.Injected {
			seen[c.Content] = true
		}
	}
	return len(seen)
}

// AttemptsOfFirst keeps, of a trial's creates, the attempts of the first
// logical call: those that carry its key or its other arguments. A
// program that makes several calls of the tool in one run has its other
// calls left out, so that C1-C3 and C7 judge one call's resends; look-ups
// stay.
func AttemptsOfFirst(rs []check.ServerRequest) []check.ServerRequest {
	var out []check.ServerRequest
	var first *check.ServerRequest
	for i, r := range rs {
		if r.Kind != "create" {
			out = append(out, r)
			continue
		}
		if first == nil {
			first = &rs[i]
		}
		if (first.Key != "" && r.Key == first.Key) || r.Hash == first.Hash {
			out = append(out, r)
		}
	}
	return out
}
