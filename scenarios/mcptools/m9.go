package mcptools

import (
	"context"
	"fmt"
	"time"

	"github.com/idemspec/idemspec/harness/check"
)

// M9: random sequences of calls, repeats, lost answers, changed
// arguments under a key and restarts leave one effect per argument set
// (per key, for a keyed tool). It is the properties' search (P1) for
// MCP tools: a failing sequence is shrunk, and the shortest goes into
// the evidence, step by step.
var M9 = check.Define(Check{
	ID: "M9", Group: Group, Level: check.MUST,
	Clause:   clauseIdempotent + "; a tool with a key: one effect per key, whatever the sequence (" + clauseKeyed + ")",
	Title:    "should leave one effect per argument set (per key, for a keyed tool) after any sequence of calls, repeats, lost answers, changed arguments under a key and restarts",
	Why:      "Rules that hold call by call can break together: a repeat after a restart, changed arguments after a lost answer.",
	Fix:      "The patterns of M1 to M7 together: effects keyed by their arguments or key, durable and atomic, and changed arguments under a used key refused.",
	Stimulus: "Runs random sequences of calls, repeats, lost answers, changed arguments under a key and restarts, and shrinks a failing one.",
	Proof:    "A model of each argument set's (or key's) effects checked against the oracle; the shortest failing sequence is in the evidence.",
	Concerns: func(a Offered) bool {
		return mutating(a) || keyed(a)
	},
	Needs: callable,
	Plan:  func(s Settings) check.Plan { return calls(2 + s.runs()*s.steps()*maxCallsPerStep) },
	Run:   toolRun(search),
})

// Defaults of M9's search: few short sequences, so that a whole audit
// stays in seconds; both mutants it must catch fail in one or two steps.
const (
	DefaultSequences    = 10
	DefaultSteps        = 8
	DefaultPropertyTime = 30 * time.Second
)

// poolSize is how many argument sets (keys) a sequence draws from: two,
// so that calls repeat one another's arguments all the time.
const poolSize = 2

// maxCallsPerStep: a repeat's two calls, or a restart's reading and
// call, and the oracle reading after every step.
const maxCallsPerStep = 3

// runs bounds the sequences that call the tool, shrinking included: a
// sequence identical to one already run is answered from memory and
// not counted.
func (s Settings) runs() int { return 4 * s.sequences() }

// search measures one call's effect, then lets rapid draw sequences.
func search(ctx context.Context, tr *trial) check.Verdict {
	const id = "M9"
	one := fresh()
	tr.call(ctx, "one call", tr.argsFor(one))
	if err := tr.read(ctx, whenOnce, one.Marker); err != nil {
		return check.Errored(id, err)
	}
	if v := SameEffect(id, tr.trace, probe{whenOnce, one.Marker}); v.Status != check.PASS {
		return v // ERROR: no answered call, or the oracle cannot see this tool
	}
	unit := tr.trace.Readings[0].Counts[one.Marker]
	calibration := tr.trace
	p := &prop{ctx: ctx, tr: tr, unit: unit, calibration: one.Marker, keyed: tr.key != "",
		restartable: tr.srv.CannotRestart() == "", deadline: time.Now().Add(tr.s.propertyTime())}
	err := p.run()
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.trace = calibration
	if err == nil && p.best == nil {
		err = p.err
	}
	if err != nil {
		return check.Errored(id, err)
	}
	calibration.Notes = append(calibration.Notes, p.summary())
	if p.best == nil && ctx.Err() != nil {
		// Its own bound (sequences, time) ends a search; an interrupt or
		// a time limit outside it leaves it unfinished: no verdict.
		return check.Errored(id, fmt.Errorf("not finished: the search was cut short (%v) after %d sequences", context.Cause(ctx), p.ran))
	}
	if seed := tr.s.Seed; seed != 0 && tr.s.Replay != nil {
		calibration.Notes = append(calibration.Notes, fmt.Sprintf("seed %d draws these sequences again: %s", seed, tr.s.Replay(seed)))
	}
	if p.best == nil && p.ran == 0 {
		return check.Skip(id, "the search's time ran out before any sequence called the tool")
	}
	if p.best == nil {
		return check.Judge(id)
	}
	tr.trace = p.best.trace
	tr.trace.Steps = p.best.steps
	tr.trace.Notes = append(append(calibration.Notes, "the calls and readings below are the shrunk sequence's; one call measured the effect before it"), p.best.notes...)
	return check.Judge(id, p.violation(p.best))
}

// summary says how far the search went, for the notes.
func (p *prop) summary() string {
	s := fmt.Sprintf("one call shows its marker %d times; %d random sequences of at most %d steps over %d argument sets",
		p.unit, min(p.drawn, p.tr.s.sequences()), p.tr.s.steps(), poolSize)
	if p.keyed {
		s += " (keys), with changed arguments under a key"
	}
	if p.restartable {
		s += ", restarts included"
	}
	s += fmt.Sprintf("; %d sequences called the tool, shrinking included", p.ran)
	if p.remembered > 0 {
		s += fmt.Sprintf(", %d identical to one already run were answered from memory", p.remembered)
	}
	if p.forgot > 0 {
		s += fmt.Sprintf("; %d restarts found the state empty (kept in memory?), after which the model started over", p.forgot)
	}
	if p.bounded {
		s += fmt.Sprintf("; the search's bound (%d sequences that call the tool, %s) cut it short", p.tr.s.runs(), p.tr.s.propertyTime())
	}
	if p.best != nil {
		s += fmt.Sprintf("; the failing sequence was shrunk to %d %s", len(p.best.steps), plural(len(p.best.steps), "step", "steps"))
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// actionNames is how each action reads in the evidence.
var actionNames = map[string]string{
	"call":    "call",
	"repeat":  "call twice",
	"lost":    "call, answer lost",
	"changed": "call with changed arguments under the key",
	"restart": "restart, then call",
}
