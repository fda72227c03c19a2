package mcptools

import (
	"context"
	"time"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/targets/mcp"
)

// M3: a tool declared idempotent, called again after a restart of the
// server and after a crash mid-call, a first call's and a repeat's,
// leaves the state of one call.
var M3 = check.Define(Check{
	ID: "M3", Group: Group, Level: check.MUST, Clause: clauseIdempotent,
	Title:    "should leave the state of one call when a tool declared idempotent is called again after a restart and after a crash mid-call",
	Why:      "A restart, or a crash mid-call, is when a tool effect that is not durable or not atomic doubles on the agent's retry.",
	Fix:      "Apply the effect durably and atomically, so a call repeated after a restart or a crash finds it whole or absent, never half done.",
	Stimulus: "Calls the tool, restarts the server and calls again; kills it mid-call, starts it and calls again.",
	Proof:    "The state after each repeat, compared with one call's.",
	Concerns: mutating, Needs: restartable,
	Plan: func(Settings) check.Plan { return calls(1 + 1 + 1 + 1 + 3 + 3) },
	Run:  toolRun(restarts),
})

const whenRepeatCrash = "after a crash mid-repeat and a retry"

// restarts: a call, a restart, the call again; a repeat of that call
// killed mid-call, the call again; a first call of fresh arguments
// killed mid-call, the call again. A repeat is aimed at too because a
// tool may take another path once its effect exists (a replace through a
// temporary file, say), and a crash there may leave what a first call's
// crash never does. The repeat's crash lands halfway through the time
// the answered repeat after the restart took, counted from when it is
// sent: in the middle of the call, whatever the machine's speed.
func restarts(ctx context.Context, tr *trial) check.Verdict {
	const id = "M3"
	v, c := fresh(), fresh()
	args := tr.argsFor(v)
	tr.call(ctx, "call 1", args)
	if err := tr.read(ctx, whenOnce, v.Marker); err != nil {
		return check.Errored(id, err)
	}
	if err := tr.srv.Restart(ctx); err != nil {
		return check.Errored(id, err)
	}
	tr.note("the server was restarted after call 1")
	started := time.Now()
	tr.call(ctx, "retry after the restart", args)
	repeat := time.Since(started)
	if err := tr.read(ctx, whenRestart, v.Marker); err != nil {
		return check.Errored(id, err)
	}
	if err := tr.crash(ctx, "a repeat of call 1, the server killed mid-call", args, repeat/2); err != nil {
		return check.Errored(id, err)
	}
	tr.call(ctx, "retry after the crash of a repeat", args)
	if err := tr.read(ctx, whenRepeatCrash, v.Marker); err != nil {
		return check.Errored(id, err)
	}
	if err := tr.crash(ctx, "call with fresh arguments, the server killed mid-call", tr.argsFor(c), 0); err != nil {
		return check.Errored(id, err)
	}
	tr.call(ctx, "retry after the crash", tr.argsFor(c))
	if err := tr.read(ctx, whenCrash, c.Marker); err != nil {
		return check.Errored(id, err)
	}
	return SameEffect(id, tr.trace, probe{whenOnce, v.Marker}, probe{whenRestart, v.Marker}, probe{whenRepeatCrash, v.Marker}, probe{whenCrash, c.Marker})
}

// crash calls the tool, kills the server once the call is delivered and
// after has passed since it was sent, and records the call as maybe
// applied.
func (tr *trial) crash(ctx context.Context, step string, args map[string]any, after time.Duration) error {
	where, err := tr.srv.CrashDuring(ctx, tr.tool.Name, args, after)
	if err != nil {
		return err
	}
	tr.note("%s: the server was killed %s", step, where)
	tr.record(step, args, mcp.Answer{}, nil, true)
	return nil
}
