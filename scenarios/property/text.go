package property

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
)

// How property steps and runs read in reports and on the terminal.

// outcomes tallies what the client knows of each exchange: "ok",
// "maybe-applied ×2, ok".
func outcomes(xs []history.Exchange) string {
	return tally(xs, func(x history.Exchange) string { return string(x.Outcome) })
}

// answers tallies what came back: "409 ×2, 201 res_1f", "no answer".
func answers(xs []history.Exchange) string {
	return tally(xs, func(x history.Exchange) string {
		switch x.Outcome {
		case history.MaybeApplied:
			return "no answer"
		case history.Failed:
			return "not sent"
		}
		if x.ResourceID != "" {
			return fmt.Sprintf("%d %s", x.Status, x.ResourceID)
		}
		return fmt.Sprint(x.Status)
	})
}

// tally groups exchanges by a description, in order of first appearance.
func tally(xs []history.Exchange, describe func(history.Exchange) string) string {
	var order []string
	count := map[string]int{}
	for _, x := range xs {
		d := describe(x)
		if count[d] == 0 {
			order = append(order, d)
		}
		count[d]++
	}
	parts := make([]string, len(order))
	for i, d := range order {
		parts[i] = d
		if count[d] > 1 {
			parts[i] = fmt.Sprintf("%s ×%d", d, count[d])
		}
	}
	return strings.Join(parts, ", ")
}

// notes sums up a search for the report.
func (r *pass) notes() []string {
	var drawn []string
	for _, a := range r.actions {
		drawn = append(drawn, fmt.Sprintf("%s %d", a.name, r.drawn[a.name]))
	}
	out := []string{
		fmt.Sprintf("rapid: %d sequences (--sequences %d) of about %d steps (--steps %d) from seed %d",
			r.sequences, r.cfg.Sequences, r.cfg.Steps, r.cfg.Steps, r.cfg.Seed),
		fmt.Sprintf("%d steps taken, %d create requests%s; steps by action: %s; %d bursts on a key not yet bound",
			r.steps, r.ledger.sent(), r.resentNote(), strings.Join(drawn, ", "), r.freshBursts),
	}
	if missing := unsupportedActions(r.env); len(missing) > 0 {
		out = append(out, "not drawn, the target does not support them: "+strings.Join(missing, "; "))
	}
	if r.cfg.Counterexample != "" && r.best == nil {
		out = append(out, r.counterexampleNote())
	}
	if r.held > 0 {
		out = append(out, fmt.Sprintf("%d restarts and crashes not taken: a sequence restarts once, and a search lands %d crashes in a request's work (--crashes), each as a sequence's first action", r.held, r.cfg.Crashes))
	}
	if r.skipped+r.unpaid > 0 {
		out = append(out, fmt.Sprintf("the request budget (%d) ran out: %d sequences skipped, %d actions not taken",
			r.cfg.Budget, r.skipped, r.unpaid))
	}
	if pooled(r.cfg) {
		out = append(out, fmt.Sprintf("%d sequences at once (--search-workers %d), each on keys of its own; %d restarts and crashes waited %s in all until the others were between steps, and held the target alone for %s",
			min(r.cfg.Workers, drawnSequences(r.cfg)), r.cfg.Workers, r.wholes, r.drained.Round(time.Millisecond), r.alone.Round(time.Millisecond)))
		if r.heldForOthers > 0 {
			out = append(out, fmt.Sprintf("%d crashes not taken because another sequence's lost answer might still be at work on the server, which a crash would abandon", r.heldForOthers))
		}
		if r.heldForCrash > 0 {
			out = append(out, fmt.Sprintf("%d lost answers not taken while a crash waited for those under way to end", r.heldForCrash))
		}
	}
	for _, c := range slices.SortedFunc(maps.Keys(r.mayAccepted), func(a, b mayCase) int { return strings.Compare(a.name, b.name) }) {
		out = append(out, fmt.Sprintf("%d creates with a malformed key (%s) accepted: not charged, %s", r.mayAccepted[c], c.name, c.why))
	}
	out = append(out, r.stopped())
	if r.best != nil {
		out = append(out, r.summary())
	}
	return out
}

// stopped says why the search stopped drawing sequences.
func (r *pass) stopped() string {
	switch {
	case r.late > 0:
		return fmt.Sprintf("the search stopped at its time (%s, --search-time): %d of %d sequences not started",
			r.cfg.SearchTime.Round(time.Second), r.late, r.cfg.Sequences)
	case r.best != nil:
		return fmt.Sprintf("the search stopped at its first counterexample, in sequence %d of %d", r.firstSequence, r.cfg.Sequences)
	}
	return fmt.Sprintf("the search ran its %d sequences within its time (%s, --search-time)", r.cfg.Sequences, r.cfg.SearchTime.Round(time.Second))
}

// resentNote says how many of the creates sent were resends to a key
// still in flight ("" for none): an action under way finishes, so with
// a budget (--property-budget) they may take the count past it.
func (r *pass) resentNote() string {
	n := r.ledger.resends()
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d of them %s)", n, ResentInFlight)
}

// ResentInFlight is how the notes name the creates resent to a key still
// in flight, which a budget does not stop once their action is under way.
const ResentInFlight = "resent to a key still in flight"

// ShrinkTimeRanOut is what the notes say when shrinking was cut by its
// time limit rather than ending because no shorter sequence failed.
const ShrinkTimeRanOut = "shrinking ran out of its time before it stopped paying"

// RaceDidNotRecur is what the notes say when the sequence that broke a
// SHOULD rule broke none when drawn again, so it is shown unshrunk.
const RaceDidNotRecur = "a race that did not recur"

// summary says how a counterexample was found and shrunk.
func (r *pass) summary() string {
	if r.best == nil {
		return fmt.Sprintf("%d sequences, no counterexample", r.sequences)
	}
	if r.cfg.Counterexample != "" {
		return fmt.Sprintf("replayed the counterexample given (--counterexample): its actions as given, nothing drawn or shrunk; it broke the rules at step %d", len(r.best.steps))
	}
	s := fmt.Sprintf("first counterexample in sequence %d after %v", r.firstSequence, r.first.Round(time.Millisecond))
	if r.failingSeed != 0 {
		s += fmt.Sprintf(" (seed %d)", r.failingSeed)
	}
	s += fmt.Sprintf(", shrunk from %d to %d steps", r.firstSteps, len(r.best.steps))
	if r.replayed > 0 {
		s += fmt.Sprintf("; %d sequences identical to one already run were answered from memory while shrinking", r.replayed)
	}
	if r.stale > 0 {
		s += fmt.Sprintf("; shrinking stopped after %d sequences without a change", r.idleLimit())
	} else if time.Since(r.start)-r.first >= r.cfg.ShrinkTime {
		// rapid stops shrinking at its deadline without a word: a long
		// counterexample on a slow target or a loaded machine says why.
		s += fmt.Sprintf("; %s (rapid.shrinktime %v)", ShrinkTimeRanOut, r.cfg.ShrinkTime)
	}
	return s
}

// Counterexample renders a property's failing steps and the replay line
// for the terminal ("" when the evidence has no steps).
func Counterexample(ev check.Evidence, indent string) string {
	if len(ev.Steps) == 0 {
		return ""
	}
	var b strings.Builder
	noun := "steps"
	if len(ev.Steps) == 1 {
		noun = "step"
	}
	fmt.Fprintf(&b, "%scounterexample, shrunk to %d %s:\n", indent, len(ev.Steps), noun)
	for _, st := range ev.Steps {
		fmt.Fprintf(&b, "%s%3d. %s\n", indent, st.N, stepLine(st))
		fmt.Fprintf(&b, "%s     expected %s\n", indent, st.Expected)
		fmt.Fprintf(&b, "%s     observed %s\n", indent, st.Observed)
		for _, broken := range st.Broken {
			fmt.Fprintf(&b, "%s     BROKEN   %s\n", indent, broken)
		}
	}
	if ev.Replay != "" {
		fmt.Fprintf(&b, "%sreplay: %s\n", indent, ev.Replay)
	}
	return strings.TrimRight(b.String(), "\n")
}

// stepLine is a step's action, key, payload, fault and outcome.
func stepLine(st history.Step) string {
	parts := []string{st.Action}
	if st.Key != "" {
		parts = append(parts, st.Key)
	}
	if st.Payload != "" {
		parts = append(parts, "payload "+st.Payload)
	}
	if st.Fault != "" {
		parts = append(parts, "with "+st.Fault)
	}
	line := strings.Join(parts, " ")
	if st.Outcome != "" {
		line += " -> " + st.Outcome
	}
	return line
}
