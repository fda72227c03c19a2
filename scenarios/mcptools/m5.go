package mcptools

import (
	"context"

	"github.com/idemspec/idemspec/harness/check"
)

// clauseKeyed: MCP has no idempotency key of its own; a tool that takes
// one is held to what the key promises an HTTP client.
const clauseKeyed = `core (a key in the input schema); MCP schema ToolAnnotations.idempotentHint defaults to false: only a key makes such a tool safe to retry; draft-ietf-httpapi-idempotency-key-header §2`

// M5: repeats of a keyed call, answers lost, have one effect.
var M5 = check.Define(Check{
	ID: "M5", Group: Group, Level: check.MUST, Clause: clauseKeyed,
	Title:    "should have the effect of one call when a keyed tool is called again with the same key after lost answers",
	Why:      "An agent retries a keyed call after a timeout with the same key; a tool that ignores the key performs the effect again.",
	Fix:      "Store the key with the effect's result under a unique constraint and replay the stored result for a key seen before.",
	Stimulus: "Calls the keyed tool again with the same key and arguments, the answers lost.",
	Proof:    "The effects the oracle counts for the key (one).",
	Concerns: keyed, Needs: callable,
	Plan: func(s Settings) check.Plan { return calls(2 + s.lost() + 2) },
	Run:  toolRun(func(ctx context.Context, tr *trial) check.Verdict { return repeats(ctx, tr, "M5") }),
})
