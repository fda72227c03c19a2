package scenarios

import "github.com/idemspec/idemspec/harness/check"

// C5: core: reconciliation before a resubmission.
var C5 = define(Check{
	ID: "C5", Group: "client", Level: check.MUST, Clause: "core (reconcile an unknown outcome before resubmitting; over MCP, with the read tool that finds the key)",
	Title: "should look the operation up before it resubmits after an unknown outcome",
	Trial: lostUncommitted(ReconcileFirst),
})

// ReconcileFirst judges C5: after a create whose answer was lost, a
// look-up arrives before the next create.
func ReconcileFirst(t ClientTrial) check.Verdict {
	if vs := needCreates(t); vs != nil {
		return check.Judge("C5", vs...)
	}
	var vs []check.Violation
	var lost *check.ServerRequest
	looked := false
	for i := range t.Requests {
		r := t.Requests[i]
		switch {
		case r.Kind == "lookup":
			looked = true
		case lost != nil && !looked:
			vs = append(vs, check.Violation{What: "resubmitted after an unknown outcome without looking the operation up", Expected: "a look-up between the two creates", Observed: "none", Seqs: seqs(*lost, r)})
		}
		if r.Kind == "create" {
			lost, looked = nil, false
			if r.Lost {
				lost = &t.Requests[i]
			}
		}
	}
	return check.Judge("C5", vs...)
}
