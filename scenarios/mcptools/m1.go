package mcptools

import (
	"context"
	"fmt"

	"github.com/idemspec/idemspec/harness/check"
)

// clauseIdempotent is the specification's definition of the hint the
// M1..M3 checks hold a tool to.
const clauseIdempotent = `MCP schema ToolAnnotations.idempotentHint: "If true, calling the tool repeatedly with the same arguments will have no additional effect on its environment."`

// M1: a tool declared idempotent, called again and again with the same
// arguments, the answers lost, leaves the state of one call.
var M1 = check.Define(Check{
	ID: "M1", Group: Group, Level: check.MUST, Clause: clauseIdempotent,
	Title:    "should leave the state of one call when a tool declared idempotent is called again with the same arguments after lost answers",
	Why:      "An agent that timed out calls the tool again; a tool declared idempotent that is not repeats the effect the agent trusted it not to.",
	Fix:      "Make the effect a function of the arguments (an upsert on a natural key, or a look-up before the create), or drop idempotentHint.",
	Stimulus: "Calls the tool with the same arguments again and again, the answers lost.",
	Proof:    "The state the oracle reads, compared with one call's.",
	Concerns: mutating, Needs: callable,
	Plan: func(s Settings) check.Plan { return calls(2 + s.lost() + 2) },
	Run:  toolRun(func(ctx context.Context, tr *trial) check.Verdict { return repeats(ctx, tr, "M1") }),
})

// repeats is the stimulus of M1 and M5: one call, then retries whose
// answers are lost, then one more answered; the oracle reads after the
// first call and after the last.
func repeats(ctx context.Context, tr *trial, id string) check.Verdict {
	v := fresh()
	args := tr.argsFor(v)
	tr.call(ctx, "call 1", args)
	if err := tr.read(ctx, whenOnce, v.Marker); err != nil {
		return check.Errored(id, err)
	}
	for i := range tr.s.lost() {
		tr.lost(ctx, fmt.Sprintf("retry %d, answer lost", i+1), args)
	}
	tr.call(ctx, "retry, answered", args)
	if err := tr.read(ctx, whenAfter, v.Marker); err != nil {
		return check.Errored(id, err)
	}
	return SameEffect(id, tr.trace, probe{whenOnce, v.Marker}, probe{whenAfter, v.Marker})
}
