package mcptools

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
)

// Outcome is how a call ended, as the agent saw it.
type Outcome string

const (
	Answered  Outcome = "answered"   // a result
	ToolError Outcome = "tool-error" // a result with isError: the tool said no
	Refused   Outcome = "refused"    // a JSON-RPC error: the server said no
	Unknown   Outcome = "no-answer"  // no answer: maybe applied
	Lost      Outcome = "lost"       // the harness made sure the answer was lost: maybe applied
)

// Call is one tools/call in a trial.
type Call struct {
	Seq     int     `json:"seq"`
	Step    string  `json:"step"`
	Tool    string  `json:"tool"`
	Args    string  `json:"args"`
	Outcome Outcome `json:"outcome"`
	Answer  string  `json:"answer,omitempty"`
}

// Reading is one oracle reading: how often each marker of the trial
// appears in the oracle's answer, and the answer itself (canonical JSON
// when it is JSON).
type Reading struct {
	When   string         `json:"when"`
	Counts map[string]int `json:"counts"`
	State  string         `json:"state"`
}

// Trace is what one check did to one tool.
type Trace struct {
	Tool     string
	Calls    []Call
	Readings []Reading
	Notes    []string
	// Steps is a property's (M9) shrunk failing sequence, step by step.
	Steps []history.Step
}

// reading finds the reading taken at when.
func (t *Trace) reading(when string) (Reading, bool) {
	for _, r := range t.Readings {
		if r.When == when {
			return r, true
		}
	}
	return Reading{}, false
}

// calls lists the calls whose step starts with prefix.
func (t *Trace) calls(prefix string) []Call {
	var out []Call
	for _, c := range t.Calls {
		if strings.HasPrefix(c.Step, prefix) {
			out = append(out, c)
		}
	}
	return out
}

// maxAnswer bounds an answer kept in the evidence.
const maxAnswer = 300

// Evidence lays the trace out for the report: the calls, and what the
// oracle counted at each reading.
func (t *Trace) Evidence() check.Evidence {
	calls := check.Table{Title: "calls to " + t.Tool, Columns: []string{"seq", "step", "tool", "arguments", "outcome", "answer"}}
	for _, c := range t.Calls {
		calls.Rows = append(calls.Rows, []string{strconv.Itoa(c.Seq), c.Step, c.Tool, c.Args, string(c.Outcome), clip(c.Answer)})
	}
	readings := check.Table{Title: "oracle readings (occurrences of each marker)", Columns: []string{"when", "counts"}}
	for _, r := range t.Readings {
		readings.Rows = append(readings.Rows, []string{r.When, countsText(r.Counts)})
	}
	return check.Evidence{Tables: []check.Table{calls, readings}, Notes: t.Notes, Steps: t.Steps}
}

func clip(s string) string {
	if len(s) > maxAnswer {
		return s[:maxAnswer] + "..."
	}
	return s
}

func countsText(c map[string]int) string {
	var parts []string
	for _, m := range sortedKeys(c) {
		parts = append(parts, fmt.Sprintf("%s=%d", m, c[m]))
	}
	return strings.Join(parts, " ")
}
