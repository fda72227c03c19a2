package mcptools

import (
	"context"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/targets/mcp"
)

const whenChanged = "after changed arguments under the key"

// M6: changed arguments under a used key are refused and do nothing.
var M6 = check.Define(Check{
	ID: "M6", Group: Group, Level: check.MUST, Clause: clauseKeyed + " §2.6 (a key reused with a different payload is refused)",
	Title:    "should refuse, with no effect, changed arguments under a key already used",
	Why:      "A key reused with changed arguments is a client bug; a tool that executes it, or replays the first result, hides it.",
	Fix:      "Store a fingerprint of the arguments with the key and refuse changed arguments under a used key with a tool error, doing nothing.",
	Stimulus: "Calls the keyed tool, then again with the same key and changed arguments.",
	Proof:    "The second call refused, and the oracle's state unchanged by it.",
	Concerns: keyed,
	Needs: func(a Offered) string {
		if why := callable(a); why != "" {
			return why
		}
		args, _ := newArguments(a.Tool, a.Key, mcp.ToolSettings{})
		if a.Args == "" && !args.carriesMarker(fresh()) {
			return "no argument but the key carries the marker, so no changed arguments can be made; give a template (tools: " + a.Tool.Name + ": args: ...)"
		}
		return ""
	},
	Plan: func(Settings) check.Plan { return calls(4) },
	Run:  toolRun(keyHeld),
})

func keyHeld(ctx context.Context, tr *trial) check.Verdict {
	const id = "M6"
	v := fresh()
	changed := Values{Marker: fresh().Marker, Key: v.Key}
	tr.call(ctx, "call 1", tr.argsFor(v))
	if err := tr.read(ctx, whenOnce, v.Marker); err != nil {
		return check.Errored(id, err)
	}
	tr.call(ctx, stepChanged, tr.argsFor(changed))
	if err := tr.read(ctx, whenChanged, v.Marker, changed.Marker); err != nil {
		return check.Errored(id, err)
	}
	return KeyHeld(id, tr.trace, probe{whenOnce, v.Marker}, probe{whenChanged, changed.Marker})
}
