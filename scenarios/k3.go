package scenarios

import (
	"context"
	"fmt"
	"sync"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
)

// K3: §2.2: "The idempotency key that is supplied as part of every POST
// request MUST be unique and MUST NOT be reused with another request with
// a different request payload."; §2.4: "An idempotency fingerprint MAY be
// used in conjunction with an idempotency key to determine the uniqueness
// of a request. Such a fingerprint is generated from request payload data
// by the resource server." So a changed body field must be refused, while
// reordered JSON members, other whitespace, another query parameter or
// another header MAY count as the same request; whichever way, one key
// never executes twice.
var K3 = check.Define(Check{
	ID: "K3", Group: "keys", Level: check.MUST, Clause: "draft-ietf-httpapi-idempotency-key-header §2.2, §2.4",
	Title:    "should treat each variation of a request as the same request or refuse it, never execute it again",
	Why:      "A server that fingerprints the serialized bytes rejects honest retries, and one that fingerprints nothing executes a changed request a second time.",
	Fix:      "Fingerprint the request's meaning (its parsed, canonical fields) and treat each variation as the same request (replay) or as a mismatch (refuse), never as a new execution.",
	Stimulus: "Sends a request, then the same key with one variation: JSON members reordered, other whitespace, a changed body field, another query parameter or header.",
	Proof:    "The oracle's count for each variation (never a second resource) and the answers.",
	// 5 variations: original, variation, oracle read each, a marker each.
	Plan: func(Planning) check.Plan {
		n := len(harness.RequestVariations)
		return check.Plan{Requests: 3 * n, MaxRequests: 3 * n, Markers: n}
	},
	Run: serverRun(fingerprintScope),
})

// K3: variations of a request under its key. Each variation has a key
// and a marker of its own, so the five are sent side by side: against
// an API whose creates take a while, one after another would wait out
// five creates.
func fingerprintScope(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error) {
	vars := make([]Variation, len(harness.RequestVariations))
	readings := make([]check.Reading, len(vars))
	errs := make([]error, len(vars))
	var wg sync.WaitGroup
	for i, v := range harness.RequestVariations {
		key, marker := e.NewKey(), e.NewMarker("K3")
		body, err := e.Body(marker, "100")
		if err != nil {
			return check.Verdict{}, err
		}
		original := harness.Attempt{Step: v.Name + ": original", Lane: e.Clean, Key: key, Body: body, Variant: "100"}
		variant := original
		variant.Step = v.Name + ": variation"
		na, err := v.Vary(e, &variant, marker)
		if err != nil {
			return check.Verdict{}, err
		}
		vars[i] = Variation{Name: v.Name, Changed: v.Changed, NotApplicable: na}
		if na != "" {
			continue
		}
		wg.Go(func() {
			vars[i].Original = e.Send(ctx, h, original)
			vars[i].Variant = e.Send(ctx, h, variant)
			readings[i], errs[i] = observe(ctx, e, marker, "after "+v.Name)
		})
	}
	wg.Wait()
	for i := range vars {
		if errs[i] != nil {
			return check.Verdict{}, errs[i]
		}
		if vars[i].NotApplicable == "" {
			vars[i].Reading = readings[i]
			ev.Readings = append(ev.Readings, readings[i])
		}
	}
	v, table := FingerprintScope(vars, e.Target.Profile.Mismatch)
	ev.Tables = append(ev.Tables, table)
	return v, nil
}

// Variation is one K3 probe: the original request, then a variation of
// it under the same key.
type Variation struct {
	Name string // "changed body field", "reordered JSON members", ...
	// Changed marks a variation that changes the request's meaning: it
	// must be refused. The others may go either way.
	Changed  bool
	Original history.Exchange
	Variant  history.Exchange
	Reading  check.Reading
	// NotApplicable says why the variation was not sent ("" when it was).
	NotApplicable string
}

// How a target treated a variation.
const (
	treatedSame    = "the same request (replayed)"
	treatedRefused = "a different request (refused)"
)

// FingerprintScope judges K3 and tabulates which variations the target
// treats as the same request. A refusal is a 4xx or the profile's
// mismatch status (which a convention may put outside the 4xx range).
func FingerprintScope(vars []Variation, mismatch int) (check.Verdict, check.Table) {
	table := check.Table{
		Title:   "K3: which variations the target treats as the same request",
		Columns: []string{"variation", "may the target treat it as the same request?", "the target treated it as", "answer"},
	}
	var sent []history.Exchange
	for _, v := range vars {
		if v.NotApplicable == "" {
			sent = append(sent, v.Original, v.Variant)
		}
	}
	if err := unreached(sent); err != nil {
		return check.Errored("K3", err), table
	}
	for _, v := range vars {
		if o := v.Original; v.NotApplicable == "" && o.Outcome == history.OK && !o.Is2xx() {
			return check.Errored("K3", fmt.Errorf("%s: the original request was not accepted (status %d), so its variation proves nothing", v.Name, o.Status)), table
		}
	}
	var vs []check.Violation
	var missing []history.Exchange
	for _, v := range vars {
		may := "yes (MAY)"
		if v.Changed {
			may = "no (MUST be refused)"
		}
		if v.NotApplicable != "" {
			table.Rows = append(table.Rows, []string{v.Name, may, "not sent: " + v.NotApplicable, ""})
			continue
		}
		treated, vv, lost := judgeVariation(v, mismatch)
		vs = append(vs, vv...)
		missing = append(missing, lost...)
		table.Rows = append(table.Rows, []string{v.Name, may, treated, answerOf(v.Variant)})
	}
	return judged("K3", vs, missing), table
}

// judgeVariation says how the target treated one variation and what was
// wrong with it, or which of its requests got no answer.
func judgeVariation(v Variation, mismatch int) (string, []check.Violation, []history.Exchange) {
	label := func(vs []check.Violation) []check.Violation {
		for i := range vs {
			vs[i].What = v.Name + ": " + vs[i].What
		}
		return vs
	}
	o, x := v.Original, v.Variant
	if lost := unanswered([]history.Exchange{o, x}); len(lost) > 0 {
		return "unknown (no answer)", nil, lost
	}
	var vs []check.Violation
	treated := "neither (" + answerOf(x) + ")"
	switch {
	case x.Is2xx() && x.ResourceID == o.ResourceID:
		treated = treatedSame
		if v.Changed {
			vs = append(vs, check.Violation{
				What: "a changed request was replayed as if it were the original", Expected: "a 4xx",
				Observed: answerOf(x), Seqs: []int{o.Seq, x.Seq},
			})
		}
	case x.Is2xx():
		treated = "a new request (executed again)"
		vs = append(vs, check.Violation{
			What: "the variation executed again under the original's key", Expected: "a replay of " + o.ResourceID + " or a 4xx",
			Observed: answerOf(x), Seqs: []int{o.Seq, x.Seq},
		})
	case is4xx(x.Status) || x.Status == mismatch:
		treated = treatedRefused
	default:
		vs = append(vs, check.Violation{
			What: "the variation was neither replayed nor refused", Expected: "a replay or a 4xx",
			Observed: answerOf(x), Seqs: []int{x.Seq},
		})
	}
	if len(vs) == 0 {
		vs = countsOne(v.Reading, o.ResourceID)
	}
	return treated, label(vs), nil
}
