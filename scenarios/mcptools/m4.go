package mcptools

import (
	"context"
	"fmt"

	"github.com/idemspec/idemspec/harness/check"
)

// M4: a tool declared read-only changes nothing the oracle reads.
var M4 = check.Define(Check{
	ID: "M4", Group: Group, Level: check.MUST,
	Clause:   `MCP schema ToolAnnotations.readOnlyHint: "If true, the tool does not modify its environment."`,
	Title:    "should change no observed state when a tool declared read-only is called",
	Why:      "Agents call read-only tools freely, retry them and run them in plans they never carry out; one that writes does so behind the agent's back.",
	Fix:      "Keep a tool declared read-only free of writes, or drop readOnlyHint.",
	Stimulus: "Calls the tool declared read-only.",
	Proof:    "The oracle's state, the same before and after.",
	Concerns: func(a Offered) bool { return a.Tool.ReadOnly },
	Needs:    callable,
	Plan:     func(s Settings) check.Plan { return calls(2 + 1 + s.lost()) },
	Run:      toolRun(readOnly),
})

func readOnly(ctx context.Context, tr *trial) check.Verdict {
	const id = "M4"
	args := tr.argsFor(fresh())
	if err := tr.read(ctx, whenBefore); err != nil {
		return check.Errored(id, err)
	}
	tr.call(ctx, "call 1", args)
	for i := range tr.s.lost() {
		tr.lost(ctx, fmt.Sprintf("retry %d, answer lost", i+1), args)
	}
	if err := tr.read(ctx, whenAfter); err != nil {
		return check.Errored(id, err)
	}
	return NoChange(id, tr.trace)
}
