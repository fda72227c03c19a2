package mcptools

import (
	"context"

	"github.com/idemspec/idemspec/harness/check"
)

// M2: a burst of identical calls to a tool declared idempotent has the
// effect of one call.
var M2 = check.Define(Check{
	ID: "M2", Group: Group, Level: check.MUST, Clause: clauseIdempotent,
	Title:    "should leave the state of one call when a tool declared idempotent gets a burst of identical concurrent calls",
	Why:      "An agent's parallel calls or retries can land together; a tool declared idempotent must still leave one call's state.",
	Fix:      "Make the effect atomic on its natural key (a unique constraint, a compare-and-set), so concurrent identical calls converge.",
	Stimulus: "Sends a burst of identical concurrent calls.",
	Proof:    "The state after the burst, compared with one call's.",
	Concerns: mutating, Needs: callable,
	Plan: func(s Settings) check.Plan { return calls(1 + s.burst() + 1) },
	Run:  toolRun(func(ctx context.Context, tr *trial) check.Verdict { return burst(ctx, tr, "M2") }),
})

// burst is the stimulus of M2 and M7: one call measures what one call
// does (its own marker), then a burst of identical calls with a fresh
// marker (and key) must do no more.
func burst(ctx context.Context, tr *trial, id string) check.Verdict {
	one, many := fresh(), fresh()
	tr.call(ctx, "one call", tr.argsFor(one))
	tr.burst(ctx, tr.s.burst(), tr.argsFor(many))
	if err := tr.read(ctx, whenBurst, one.Marker, many.Marker); err != nil {
		return check.Errored(id, err)
	}
	tr.note("one call carries marker %s; the burst of %d carries %s", one.Marker, tr.s.burst(), many.Marker)
	return SameEffect(id, tr.trace, probe{whenBurst, one.Marker}, probe{whenBurst, many.Marker})
}
