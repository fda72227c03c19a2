package mcptools

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
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
	Plan: func(Settings) check.Plan {
		// Each of the two crashes may be tried again, crashTries times in all.
		p := calls(1 + 1 + 1 + 1 + 3 + 3)
		p.MaxRequests += 2 * (crashTries - 1)
		return p
	},
	Run: toolRun(restarts),
})

const whenRepeatCrash = "after a crash mid-repeat and a retry"

// crashTries is how many crashes M3 aims at a call before it says the
// crash never landed mid-call: each waits on a moment counted from the
// call's delivery, which a busy machine may make late once.
const crashTries = 3

// restarts: a call, a restart, the call again; a repeat of that call
// killed mid-call, the call again; a first call of fresh arguments
// killed mid-call, the call again. A repeat is aimed at too because a
// tool may take another path once its effect exists (a replace through a
// temporary file, say), and a crash there may leave what a first call's
// crash never does. The repeat's crash lands halfway through the time
// the answered repeat after the restart took, counted from when it is
// sent: in the middle of the call, whatever the machine's speed. A
// crash that came after the answer is tried again (a repeat with the
// same arguments, a first call with fresh ones), crashTries times at
// most.
func restarts(ctx context.Context, tr *trial) check.Verdict {
	const id = "M3"
	v := fresh()
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
	var missed []string
	late, err := tr.crash(ctx, "a repeat of call 1, the server killed mid-call", func() map[string]any { return args }, repeat/2)
	if err != nil {
		return check.Errored(id, err)
	}
	if late != nil {
		aim := fmt.Sprintf("aimed at half the %s the answered repeat after the restart took, then at half the time each call it missed took", repeat.Round(time.Millisecond))
		late.Hint = strings.Join(slices.DeleteFunc([]string{aim, late.Hint}, func(s string) bool { return s == "" }), "; ")
		missed = append(missed, "a repeat's crash: "+late.Error())
	}
	tr.call(ctx, "retry after the crash of a repeat", args)
	if err := tr.read(ctx, whenRepeatCrash, v.Marker); err != nil {
		return check.Errored(id, err)
	}
	var c Values
	late, err = tr.crash(ctx, "call with fresh arguments, the server killed mid-call", func() map[string]any { c = fresh(); return tr.argsFor(c) }, 0)
	if err != nil {
		return check.Errored(id, err)
	}
	if late != nil {
		missed = append(missed, "a first call's crash: "+late.Error())
	}
	tr.call(ctx, "retry after the crash", tr.argsFor(c))
	if err := tr.read(ctx, whenCrash, c.Marker); err != nil {
		return check.Errored(id, err)
	}
	return Crashed(id, tr.trace, missed, probe{whenOnce, v.Marker}, probe{whenRestart, v.Marker}, probe{whenRepeatCrash, v.Marker}, probe{whenCrash, c.Marker})
}

// Crashed judges M3: the state of one call after each repeat
// (SameEffect), where a PASS also needs every crash to have landed
// mid-call. missed says of each crash that came after its call's answer
// what it waited for: such a crash is a restart of a server that had
// finished, which a tool that is not crash-safe passes, so the check is
// ERROR unless the counts already show a violation.
func Crashed(id string, t *Trace, missed []string, one probe, others ...probe) check.Verdict {
	v := SameEffect(id, t, one, others...)
	if v.Status != check.PASS || len(missed) == 0 {
		return v
	}
	return check.Errored(id, errors.New(strings.Join(missed, "; ")))
}

// crash calls the tool with the arguments args gives, kills the server
// once the call is delivered and after has passed since it was sent,
// and records the call as maybe applied. A crash that came after the
// answer is tried again with args called anew, aimed at half the time
// the answered call took, crashTries times in all; the last one's
// *mcp.CrashMissed is returned if none landed.
func (tr *trial) crash(ctx context.Context, step string, args func() map[string]any, after time.Duration) (*mcp.CrashMissed, error) {
	for try := 1; ; try++ {
		a := args()
		where, err := tr.srv.CrashDuring(ctx, tr.tool.Name, a, after)
		var late *mcp.CrashMissed
		if err != nil && !errors.As(err, &late) {
			return nil, err
		}
		tr.record(step, a, mcp.Answer{}, nil, true)
		if late == nil {
			tr.note("%s: the server was killed %s", step, where)
			return nil, nil
		}
		tr.note("%s: crash %d of at most %d came after the answer (%s; answered %s after it was sent)", step, try, crashTries, late.Awaited, late.Took.Round(time.Millisecond))
		if try == crashTries {
			return late, nil
		}
		if late.Took > 0 {
			// Aimed again at half the time that call took: a moment
			// measured on a slower call (the repeat after a restart, on
			// a busy machine) would miss every faster one the same way.
			after = max(late.Took/2, time.Microsecond)
		}
	}
}
