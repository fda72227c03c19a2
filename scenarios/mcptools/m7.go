package mcptools

import (
	"context"

	"github.com/idemspec/idemspec/harness/check"
)

// M7: a burst of identical keyed calls has one effect.
var M7 = check.Define(Check{
	ID: "M7", Group: Group, Level: check.MUST, Clause: clauseKeyed,
	Title:    "should have the effect of one call when a keyed tool gets a burst of identical concurrent calls with one key",
	Why:      "Concurrent retries of a keyed call race through a check-then-insert and both execute.",
	Fix:      "Claim the key atomically (a unique constraint) before doing the work.",
	Stimulus: "Sends a burst of identical concurrent calls with one key.",
	Proof:    "The effects the oracle counts for the key (one).",
	Concerns: keyed, Needs: callable,
	Plan: func(s Settings) check.Plan { return calls(1 + s.burst() + 1) },
	Run:  toolRun(func(ctx context.Context, tr *trial) check.Verdict { return burst(ctx, tr, "M7") }),
})
