package check

import (
	"fmt"

	"github.com/idemspec/idemspec/harness/history"
)

// Variation is one K3 probe: the original request, then a variation of
// it under the same key.
type Variation struct {
	Name string // "changed body field", "reordered JSON members", ...
	// Changed marks a variation that changes the request's meaning: it
	// must be refused. The others may go either way.
	Changed  bool
	Original history.Exchange
	Variant  history.Exchange
	Reading  Reading
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
func FingerprintScope(vars []Variation, mismatch int) (Verdict, Table) {
	table := Table{
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
		return Errored(K3.ID, err), table
	}
	for _, v := range vars {
		if o := v.Original; v.NotApplicable == "" && o.Outcome == history.OK && !o.Is2xx() {
			return Errored(K3.ID, fmt.Errorf("%s: the original request was not accepted (status %d), so its variation proves nothing", v.Name, o.Status)), table
		}
	}
	var vs []Violation
	for _, v := range vars {
		may := "yes (MAY)"
		if v.Changed {
			may = "no (MUST be refused)"
		}
		if v.NotApplicable != "" {
			table.Rows = append(table.Rows, []string{v.Name, may, "not sent: " + v.NotApplicable, ""})
			continue
		}
		treated, vv := judgeVariation(v, mismatch)
		vs = append(vs, vv...)
		table.Rows = append(table.Rows, []string{v.Name, may, treated, answerOf(v.Variant)})
	}
	return Judge(K3.ID, vs...), table
}

// judgeVariation says how the target treated one variation and what was
// wrong with it.
func judgeVariation(v Variation, mismatch int) (string, []Violation) {
	label := func(vs []Violation) []Violation {
		for i := range vs {
			vs[i].What = v.Name + ": " + vs[i].What
		}
		return vs
	}
	o, x := v.Original, v.Variant
	vs := label(unanswered([]history.Exchange{o, x}))
	if len(vs) > 0 {
		return "unknown (no answer)", vs
	}
	treated := "neither (" + answerOf(x) + ")"
	switch {
	case x.Is2xx() && x.ResourceID == o.ResourceID:
		treated = treatedSame
		if v.Changed {
			vs = append(vs, Violation{
				What: "a changed request was replayed as if it were the original", Expected: "a 4xx",
				Observed: answerOf(x), Seqs: []int{o.Seq, x.Seq},
			})
		}
	case x.Is2xx():
		treated = "a new request (executed again)"
		vs = append(vs, Violation{
			What: "the variation executed again under the original's key", Expected: "a replay of " + o.ResourceID + " or a 4xx",
			Observed: answerOf(x), Seqs: []int{o.Seq, x.Seq},
		})
	case is4xx(x.Status) || x.Status == mismatch:
		treated = treatedRefused
	default:
		vs = append(vs, Violation{
			What: "the variation was neither replayed nor refused", Expected: "a replay or a 4xx",
			Observed: answerOf(x), Seqs: []int{x.Seq},
		})
	}
	if len(vs) == 0 {
		vs = oneResource(v.Reading, o.ResourceID)
	}
	return treated, label(vs)
}

// answerOf shows an answer briefly: "201 id r1", "422".
func answerOf(x history.Exchange) string {
	if x.Outcome != history.OK {
		return string(x.Outcome)
	}
	if x.ResourceID != "" {
		return fmt.Sprintf("%d id %s", x.Status, x.ResourceID)
	}
	return fmt.Sprint(x.Status)
}
