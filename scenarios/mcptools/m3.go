package mcptools

import (
	"context"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/targets/mcp"
)

// M3: a tool declared idempotent, called again after a restart of the
// server and after a crash mid-call, leaves the state of one call.
var M3 = define(Check{
	ID: "M3", Level: check.MUST, Clause: clauseIdempotent,
	Title:    "should leave the state of one call when a tool declared idempotent is called again after a restart and after a crash mid-call",
	Concerns: mutating, Needs: restartable,
	Calls: func(Settings) int { return 1 + 1 + 1 + 1 + 1 + 1 },
	Run:   restarts,
})

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
	tr.call(ctx, "retry after the restart", args)
	if err := tr.read(ctx, whenRestart, v.Marker); err != nil {
		return check.Errored(id, err)
	}
	crashed := tr.argsFor(c)
	where, err := tr.srv.CrashDuring(ctx, tr.tool.Name, crashed)
	if err != nil {
		return check.Errored(id, err)
	}
	tr.note("the server was killed %s", where)
	tr.record("call, the server killed mid-call", crashed, mcp.Answer{}, nil, true)
	tr.call(ctx, "retry after the crash", crashed)
	if err := tr.read(ctx, whenCrash, c.Marker); err != nil {
		return check.Errored(id, err)
	}
	return SameEffect(id, tr.trace, probe{whenOnce, v.Marker}, probe{whenRestart, v.Marker}, probe{whenCrash, c.Marker})
}
