package mcptools

import "github.com/idemspec/idemspec/harness/check"

// M8: every tool an agent may call should be safe to call again after a
// timeout: declared read-only or idempotent, or keyed.
var M8 = check.Define(Check{
	ID: "M8", Group: Group, Level: check.SHOULD,
	Clause:   `MCP schema ToolAnnotations: readOnlyHint defaults to false, idempotentHint to false, destructiveHint to true; a tool without them gives a timed-out agent no safe retry`,
	Title:    "should be safe to retry: declared read-only or idempotent, or taking an idempotency key",
	Why:      "A timed-out agent has no safe retry for a tool that is neither read-only, idempotent nor keyed: it must guess, and a guess duplicates.",
	Fix:      "Annotate the tool honestly (readOnlyHint, idempotentHint), or give it an idempotency_key argument it deduplicates on, which the agent derives from the business operation, not from the model's tool-call id.",
	Stimulus: "Reads the tool's declaration from tools/list; nothing is called.",
	Proof:    "The tool's annotations and input schema.",
	Concerns: func(Offered) bool { return true },
	Plan:     func(Settings) check.Plan { return calls(0) },
	Judge:    func(a Offered) check.Verdict { return RetrySafe("M8", a.Tool, a.Key) },
})
