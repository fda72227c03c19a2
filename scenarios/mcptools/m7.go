package mcptools

import (
	"context"

	"github.com/idemspec/idemspec/harness/check"
)

// M7: a burst of identical keyed calls has one effect.
var M7 = define(Check{
	ID: "M7", Level: check.MUST, Clause: clauseKeyed,
	Title:    "should have the effect of one call when a keyed tool gets a burst of identical concurrent calls with one key",
	Concerns: keyed, Needs: callable,
	Calls: func(s Settings) int { return 1 + s.burst() + 1 },
	Run:   func(ctx context.Context, tr *trial) check.Verdict { return burst(ctx, tr, "M7") },
})
