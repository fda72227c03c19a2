package mcptools

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"pgregory.net/rapid"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/scenarios/property"
)

// prop is one M9 search against one tool.
type prop struct {
	ctx         context.Context
	tr          *trial
	unit        int
	calibration string // the marker of the call that measured unit
	keyed       bool
	restartable bool
	deadline    time.Time

	// drawn counts the sequences rapid drew, ran those that called the
	// tool, remembered those answered from memory; bounded says the time
	// or the run bound cut the search.
	drawn, ran, remembered int
	bounded                bool
	// forgot counts the restarts after which the state was empty.
	forgot int
	// err is the harness's trouble that stopped the search (a restart
	// or an oracle reading that failed).
	err error
	// failed holds every failing run by its plan up to the failing step:
	// a plan that starts so fails there too. passed holds passing plans.
	failed map[string]*run
	passed map[string]bool
	best   *run
}

// act is one drawn action on one argument set (1..poolSize).
type act struct {
	kind  string
	entry int
}

func planKey(plan []act) string {
	var b strings.Builder
	for _, a := range plan {
		fmt.Fprintf(&b, "%s/%d;", a.kind, a.entry)
	}
	return b.String()
}

// run is one sequence taken against the tool.
type run struct {
	plan   []act
	steps  []history.Step
	trace  *Trace
	notes  []string
	broken []Mismatch
	// cut: the search's time ran out before the plan's end.
	cut bool
}

// expired says the search's time, or the check's, is over.
func (p *prop) expired() bool { return time.Now().After(p.deadline) || p.ctx.Err() != nil }

// violation is the failing step as the verdict states it.
func (p *prop) violation(r *run) check.Violation {
	last := r.steps[len(r.steps)-1]
	var plan []string
	for _, a := range r.plan {
		plan = append(plan, actionNames[a.kind]+" "+p.keyName(a.entry))
	}
	return check.Violation{
		What: fmt.Sprintf("after %d %s (%s), %s shows other effects than one per argument set (per key)",
			len(r.steps), plural(len(r.steps), "step", "steps"), strings.Join(plan, "; "), r.trace.Tool),
		Expected: last.Expected,
		Observed: last.Observed,
		Seqs:     seqs(r.trace.Calls),
	}
}

// rapidChecks is how many sequences rapid is told to draw: more than
// any search takes (rapid draws a fifth under go test -short); the
// search itself stops calling after its own bound.
const rapidChecks = 200

func (p *prop) run() error {
	p.failed, p.passed = map[string]*run{}, map[string]bool{}
	tb := property.NewTB("idemspec-mcp-M9-"+token(), io.Discard)
	if err := property.Drive(tb, property.Knobs{Checks: rapidChecks, Seed: p.tr.s.Seed, ShrinkTime: DefaultPropertyTime}, p.sequence); err != nil {
		return err
	}
	if p.best == nil && tb.Failed() {
		return fmt.Errorf("rapid: %s", tb.Message())
	}
	return nil
}

// sequence is what rapid runs for each sequence it draws: the plan is
// drawn whole, answered from memory when it was run before, else taken
// against the tool while the bounds allow. Every failure is reported
// from one line with one message: rapid keeps a smaller sequence only
// if it fails at the same place.
func (p *prop) sequence(t *rapid.T) {
	if p.failing(p.draw(t)) {
		t.Fatalf("M9: more than one effect per argument set (or key)")
	}
}

// failing says whether the plan breaks the model: from memory, or by
// taking it.
func (p *prop) failing(plan []act) bool {
	p.drawn++
	if p.failedBefore(plan) != nil {
		p.remembered++
		return true
	}
	if p.passed[planKey(plan)] {
		p.remembered++
		return false
	}
	if p.best == nil && p.drawn > p.tr.s.sequences() {
		return false // searched enough
	}
	if p.ran >= p.tr.s.runs() || p.expired() {
		p.bounded = true
		return false
	}
	p.ran++
	r := p.take(plan)
	if len(r.broken) == 0 {
		if !r.cut {
			p.passed[planKey(plan)] = true
		}
		return false
	}
	r.plan = plan[:len(r.steps)] // the steps after the broken one were not taken
	p.failed[planKey(r.plan)] = r
	if p.best == nil || len(r.steps) <= len(p.best.steps) {
		p.best = r
	}
	return true
}

// failedBefore is a failing run whose plan this one starts with.
func (p *prop) failedBefore(plan []act) *run {
	for i := range plan {
		if r, ok := p.failed[planKey(plan[:i+1])]; ok {
			return r
		}
	}
	return nil
}

// draw draws a sequence of actions as a slice, which rapid shrinks by
// dropping actions and moving each toward a plain call of the first
// argument set. A restart is taken once per sequence: a later one is a
// plain call, and the plan says so.
func (p *prop) draw(t *rapid.T) []act {
	kinds := []string{"call", "repeat", "lost"}
	if p.keyed {
		kinds = append(kinds, "changed")
	}
	if p.restartable {
		kinds = append(kinds, "restart")
	}
	gen := rapid.Custom(func(t *rapid.T) act {
		return act{kind: rapid.SampledFrom(kinds).Draw(t, "action"), entry: rapid.IntRange(1, poolSize).Draw(t, "args")}
	})
	plan := rapid.SliceOfN(gen, 1, p.tr.s.steps()).Draw(t, "plan")
	restarted := false
	for i, a := range plan {
		if a.kind == "restart" && restarted {
			plan[i].kind = "call"
		}
		restarted = restarted || a.kind == "restart"
	}
	return plan
}

// pool is a sequence's argument sets: fresh markers and keys, so that no
// sequence sees another's effects.
type pool struct {
	values, changed [poolSize + 1]Values
	names           map[string]string // marker -> its name in the evidence
	markers         []string
}

func (p *prop) newPool() *pool {
	pl := &pool{names: map[string]string{}}
	for i := 1; i <= poolSize; i++ {
		pl.values[i] = fresh()
		pl.changed[i] = Values{Marker: fresh().Marker, Key: pl.values[i].Key}
		pl.names[pl.values[i].Marker] = p.keyName(i)
		pl.markers = append(pl.markers, pl.values[i].Marker)
		if p.keyed {
			pl.names[pl.values[i].Marker] = p.keyName(i) + " args"
			pl.names[pl.changed[i].Marker] = p.keyName(i) + " changed args"
			pl.markers = append(pl.markers, pl.changed[i].Marker)
		}
	}
	return pl
}

func (p *prop) keyName(i int) string {
	if p.keyed {
		return fmt.Sprintf("key %d", i)
	}
	return fmt.Sprintf("args %d", i)
}

// take runs a plan against the tool, judging the oracle's counts after
// every step; it stops at the first step that breaks the model.
func (p *prop) take(plan []act) *run {
	r := &run{plan: plan, trace: &Trace{Tool: p.tr.tool.Name}}
	p.tr.mu.Lock()
	p.tr.trace, p.tr.seq = r.trace, 0
	p.tr.mu.Unlock()
	pl := p.newPool()
	keys := map[string][]string{}
	for i := 1; i <= poolSize; i++ {
		keys[p.keyName(i)] = []string{pl.names[pl.values[i].Marker]}
		if p.keyed {
			keys[p.keyName(i)] = append(keys[p.keyName(i)], pl.names[pl.changed[i].Marker])
		}
	}
	model := NewEffects(p.unit, keys)
	var markers []string
	for _, m := range pl.markers {
		markers = append(markers, pl.names[m]+" = "+m)
	}
	r.notes = append(r.notes, fmt.Sprintf("the sequence's markers: %s; the calibration call's: %s", strings.Join(markers, ", "), p.calibration))
	for n, a := range plan {
		if p.expired() {
			r.cut, p.bounded = true, true
			break
		}
		st, ok := p.step(r, pl, model, n+1, a)
		r.steps = append(r.steps, st)
		if !ok {
			break
		}
	}
	return r
}

// step takes one action and judges the oracle's counts after it.
func (p *prop) step(r *run, pl *pool, model *Effects, n int, a act) (history.Step, bool) {
	ctx := p.ctx
	key := p.keyName(a.entry)
	v := pl.values[a.entry]
	st := history.Step{N: n, Action: actionNames[a.kind], Key: key, Payload: "the set's arguments"}
	if a.kind == "changed" {
		v, st.Payload = pl.changed[a.entry], "changed arguments, same key"
	}
	var outcomes []string
	call := func(label string) {
		o := p.tr.call(ctx, fmt.Sprintf("%d. %s", n, label), p.tr.argsFor(v))
		model.Called(key, pl.names[v.Marker], o == Answered)
		outcomes = append(outcomes, string(o))
	}
	switch a.kind {
	case "call", "changed":
		call(actionNames[a.kind])
	case "repeat":
		call("call")
		call("the same call again")
	case "lost":
		p.tr.lost(ctx, fmt.Sprintf("%d. call, answer lost", n), p.tr.argsFor(v))
		model.Called(key, pl.names[v.Marker], false)
		outcomes = append(outcomes, string(Lost))
		st.Fault = "answer lost"
	case "restart":
		st.Fault = "restart"
		if err := p.tr.srv.Restart(ctx); err != nil {
			return p.harnessError(st, err)
		}
		counts, err := p.read(r, pl, fmt.Sprintf("after step %d's restart", n))
		if err != nil {
			return p.harnessError(st, err)
		}
		if empty(counts) {
			// Nothing the audit made survived: the server keeps its state
			// in memory. That is no retry's fault; the model starts over.
			model.Forget()
			p.forgot++
			r.notes = append(r.notes, fmt.Sprintf("step %d: the restart lost the server's whole state (kept in memory?); the model starts again from nothing", n))
		} else if broken := model.Observe(named(pl, counts)); len(broken) > 0 {
			return p.judged(r, st, broken, counts, pl, key)
		}
		call("call after the restart")
	}
	st.Outcome = strings.Join(outcomes, ", ")
	counts, err := p.read(r, pl, fmt.Sprintf("after step %d", n))
	if err != nil {
		return p.harnessError(st, err)
	}
	return p.judged(r, st, model.Observe(named(pl, counts)), counts, pl, key)
}

// judged fills the step's expected and observed effects for its key.
func (p *prop) judged(r *run, st history.Step, broken []Mismatch, counts map[string]int, pl *pool, key string) (history.Step, bool) {
	st.Expected = fmt.Sprintf("%s: one effect at most (%d occurrences of its marker per effect)", key, p.unit)
	st.Observed = key + ": " + shown(pl, counts, key)
	for _, b := range broken {
		st.Broken = append(st.Broken, fmt.Sprintf("%s: expected %s, observed %s", b.Key, b.Expected, b.Observed))
		if b.Key == key {
			st.Expected = key + ": " + b.Expected
		}
	}
	st.Seqs = seqs(r.trace.Calls)
	r.broken = broken
	return st, len(broken) == 0
}

// harnessError ends the sequence where the harness could not go on (a
// restart or an oracle reading failed): no verdict on the tool, but the
// search stops calling. A failure because the time ran out only cuts
// the search short: the verdict never depends on time.
func (p *prop) harnessError(st history.Step, err error) (history.Step, bool) {
	st.Observed = "the harness could not go on: " + err.Error()
	if p.expired() {
		p.bounded = true
	} else if p.err == nil {
		p.err = err
	}
	p.deadline = time.Now()
	return st, false
}

// read asks the oracle and returns the counts of every marker of the
// sequence and of the calibration call.
func (p *prop) read(r *run, pl *pool, when string) (map[string]int, error) {
	if err := p.tr.read(p.ctx, when, append([]string{p.calibration}, pl.markers...)...); err != nil {
		return nil, err
	}
	return r.trace.Readings[len(r.trace.Readings)-1].Counts, nil
}

// named is counts by the markers' names in the evidence.
func named(pl *pool, counts map[string]int) map[string]int {
	out := map[string]int{}
	for m, name := range pl.names {
		out[name] = counts[m]
	}
	return out
}

// shown is what the oracle showed of one key's markers.
func shown(pl *pool, counts map[string]int, key string) string {
	var parts []string
	for _, m := range pl.markers {
		if name := pl.names[m]; strings.HasPrefix(name, key) {
			parts = append(parts, fmt.Sprintf("%s=%d", name, counts[m]))
		}
	}
	return strings.Join(parts, " ")
}

func empty(counts map[string]int) bool {
	for _, n := range counts {
		if n != 0 {
			return false
		}
	}
	return true
}
