package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/idemspec/idemspec/harness/history"
)

// T1: DESIGN.md, further checks: "tenant isolation (a second credential
// reusing a key must not get the first tenant's resource)". Idempotency
// keys are chosen by clients, so two tenants can pick the same one; a
// server that scopes keys globally replays one tenant's answer (its
// resource id, its data) to another.
var T1 = Register(Check{
	ID: "T1", Group: "tenants", Level: MUST, Clause: "core (tenant isolation)",
	Title: "should give a second tenant reusing a key its own resource or a refusal, never the first tenant's",
})

// TenantRun is what T1 saw: the first tenant's create, the second
// tenant's create with the same key and the same bytes, and what the
// oracle showed each tenant for the marker.
type TenantRun struct {
	First, Second               history.Exchange
	FirstReading, SecondReading Reading
}

// TenantIsolation judges T1.
func TenantIsolation(r TenantRun) Verdict {
	if r.First.Outcome != history.OK || !r.First.Is2xx() || r.First.ResourceID == "" {
		return Errored(T1.ID, fmt.Errorf("the first tenant's create did not succeed with a resource id (%s %d): nothing to compare", r.First.Outcome, r.First.Status))
	}
	if r.Second.Outcome != history.OK {
		return Errored(T1.ID, fmt.Errorf("the second tenant's create got no answer (%s): %s", r.Second.Outcome, r.Second.Error))
	}
	leaked := r.First.ResourceID
	var vs []Violation
	if r.Second.ResourceID == leaked || strings.Contains(r.Second.Body, leaked) {
		vs = append(vs, Violation{
			What:     "the second tenant's answer carries the first tenant's resource",
			Expected: "its own resource id or a refusal", Observed: fmt.Sprintf("%d with resource %s", r.Second.Status, leaked),
			Seqs: []int{r.First.Seq, r.Second.Seq},
		})
	}
	if slices.Contains(r.SecondReading.IDs, leaked) {
		vs = append(vs, Violation{
			What:     "the oracle, asked as the second tenant, lists the first tenant's resource",
			Expected: "only the second tenant's resources", Observed: strings.Join(r.SecondReading.IDs, ", "),
		})
	}
	if r.Second.Is2xx() && r.Second.ResourceID != "" && r.Second.ResourceID != leaked && !slices.Contains(r.SecondReading.IDs, r.Second.ResourceID) && r.SecondReading.IDs != nil {
		vs = append(vs, Violation{
			What:     "the second tenant's resource is not in its own view",
			Expected: r.Second.ResourceID, Observed: fmt.Sprintf("%v", r.SecondReading.IDs), Seqs: []int{r.Second.Seq},
		})
	}
	if r.FirstReading.Count != 1 {
		vs = append(vs, Violation{
			What:     "the first tenant does not see exactly its one resource after the second tenant's create",
			Expected: "1", Observed: fmt.Sprint(r.FirstReading.Count),
		})
	}
	return Judge(T1.ID, vs...)
}
