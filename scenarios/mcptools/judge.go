package mcptools

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/targets/mcp"
)

// probe names one count of a trace: the occurrences of marker in the
// oracle's reading taken at when.
type probe struct{ When, Marker string }

func (p probe) count(t *Trace) (int, error) {
	r, ok := t.reading(p.When)
	if !ok {
		return 0, fmt.Errorf("no oracle reading %q in the trace", p.When)
	}
	return r.Counts[p.Marker], nil
}

// SameEffect judges a trace against "the state of one call": the first
// call must be answered and the count at one is what it does (it must
// show an effect, or the oracle cannot see this tool and the check
// cannot judge); every other count must equal it. A check passes only
// on that evidence: an answered call whose effect the oracle saw.
func SameEffect(id string, t *Trace, one probe, others ...probe) check.Verdict {
	if why := unanswered(t); why != "" {
		return check.Errored(id, errors.New(why))
	}
	want, err := one.count(t)
	if err != nil {
		return check.Errored(id, err)
	}
	if want == 0 {
		return check.Errored(id, fmt.Errorf("the oracle shows no effect of one call to %s (marker %s found 0 times): give arguments that the oracle shows, or an oracle that shows this tool's effect",
			t.Tool, one.Marker))
	}
	var vs []check.Violation
	for _, o := range others {
		got, err := o.count(t)
		if err != nil {
			return check.Errored(id, err)
		}
		if got == 0 && o.Marker != one.Marker && !answeredWith(t, o.Marker) {
			// No call of these arguments was answered, and none shows: the
			// oracle saw nothing to judge (a burst refused whole, a retry
			// after a crash that failed), which is no violation either.
			return check.Errored(id, fmt.Errorf("%s: no call carrying marker %s was answered and none shows, so there is nothing to compare with one call: %s",
				o.When, o.Marker, lastAnswer(t, o.Marker)))
		}
		if got != want {
			vs = append(vs, check.Violation{
				What:     fmt.Sprintf("%s: %s changed the state more than one call does", o.When, t.Tool),
				Expected: fmt.Sprintf("marker %s seen %d times, as after one call", o.Marker, want),
				Observed: fmt.Sprintf("%d times", got),
				Seqs:     seqs(t.Calls),
			})
		}
	}
	return check.Judge(id, vs...)
}

// unanswered says why the trace's first call, the one whose effect the
// check measures, is no evidence ("": it was answered).
func unanswered(t *Trace) string {
	if len(t.Calls) == 0 {
		return fmt.Sprintf("no call to %s was made", t.Tool)
	}
	if c := t.Calls[0]; c.Outcome != Answered {
		return fmt.Sprintf("the first call to %s ended %s (%s), so nothing shows what one call does: give arguments the tool accepts (tools: %s: args: ...)",
			t.Tool, c.Outcome, clip(c.Answer), t.Tool)
	}
	return ""
}

// answeredWith says whether a call carrying marker was answered.
func answeredWith(t *Trace, marker string) bool {
	return slices.ContainsFunc(t.Calls, func(c Call) bool { return c.Outcome == Answered && strings.Contains(c.Args, marker) })
}

// lastAnswer says how the last call carrying marker ended.
func lastAnswer(t *Trace, marker string) string {
	for i := len(t.Calls) - 1; i >= 0; i-- {
		if c := t.Calls[i]; strings.Contains(c.Args, marker) {
			return fmt.Sprintf("the last ended %s (%s)", c.Outcome, clip(c.Answer))
		}
	}
	return "no call carried it"
}

// NoChange judges a read-only tool: the oracle's whole answer after the
// calls equals the one before, and at least one call was answered (a
// tool that refused every call was never seen reading anything).
func NoChange(id string, t *Trace) check.Verdict {
	before, ok1 := t.reading(whenBefore)
	after, ok2 := t.reading(whenAfter)
	if !ok1 || !ok2 {
		return check.Errored(id, fmt.Errorf("the trace lacks the oracle readings before and after"))
	}
	if before.State != after.State {
		return check.Judge(id, check.Violation{
			What:     fmt.Sprintf("%s, declared read-only, changed what the oracle reads", t.Tool),
			Expected: clip(before.State),
			Observed: clip(after.State),
			Seqs:     seqs(t.Calls),
		})
	}
	if !slices.ContainsFunc(t.Calls, func(c Call) bool { return c.Outcome == Answered }) {
		why := fmt.Sprintf("no call to %s was answered", t.Tool)
		if len(t.Calls) > 0 {
			why += fmt.Sprintf(" (the first ended %s: %s)", t.Calls[0].Outcome, clip(t.Calls[0].Answer))
		}
		return check.Errored(id, fmt.Errorf("%s, so the check saw it change nothing only when it did nothing: give arguments the tool accepts (tools: %s: args: ...)", why, t.Tool))
	}
	return check.Judge(id)
}

// KeyHeld judges a changed argument under a used key: the call must be
// refused (a tool error or a JSON-RPC error), and it must leave no
// effect: the changed marker unseen, the first call's effect as it was.
func KeyHeld(id string, t *Trace, first, changed probe) check.Verdict {
	v := SameEffect(id, t, first, probe{When: changed.When, Marker: first.Marker})
	if v.Status == check.ERROR {
		return v
	}
	vs := v.Violations
	if got, err := changed.count(t); err != nil {
		return check.Errored(id, err)
	} else if got != 0 {
		vs = append(vs, check.Violation{
			What:     fmt.Sprintf("%s acted on changed arguments under a key already used", t.Tool),
			Expected: fmt.Sprintf("no effect (marker %s unseen)", changed.Marker),
			Observed: fmt.Sprintf("marker %s seen %d times", changed.Marker, got),
		})
	}
	for _, c := range t.calls(stepChanged) {
		if c.Outcome == Answered {
			vs = append(vs, check.Violation{
				What:     fmt.Sprintf("%s: changed arguments under a used key were accepted", c.Step),
				Expected: "a refusal (isError, or a JSON-RPC error)",
				Observed: "a result: " + clip(c.Answer),
				Seqs:     []int{c.Seq},
			})
		}
	}
	return check.Judge(id, vs...)
}

// RetrySafe is the audit's first question for every tool: may an agent
// that timed out call it again? Yes if it is declared read-only or
// idempotent (the other checks test the claim), or takes a key. Else it
// is a WARN, not a FAIL: the tool keeps its word, but no agent can retry
// it safely.
func RetrySafe(id string, tool mcp.Tool, key string) check.Verdict {
	if tool.ReadOnly || tool.Idempotent || key != "" {
		return check.Judge(id)
	}
	return check.Warned(id, check.Violation{
		What:     fmt.Sprintf("%s is not retry-safe: an agent that times out cannot learn whether it ran and has no key to make a retry safe", tool.Name),
		Expected: "readOnlyHint or idempotentHint (true to the claim), or an idempotency key in the input schema",
		Observed: fmt.Sprintf("%s; destructiveHint: %t", tool.Claim(), tool.Destructive),
	})
}

func seqs(cs []Call) []int {
	out := make([]int, len(cs))
	for i, c := range cs {
		out[i] = c.Seq
	}
	return out
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return slices.Compact(out)
}
