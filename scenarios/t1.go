package scenarios

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/targets"
)

// T1, one of the further checks: "tenant isolation (a second credential
// reusing a key must not get the first tenant's resource)". Idempotency
// keys are chosen by clients, so two tenants can pick the same one; a
// server that scopes keys globally replays one tenant's answer (its
// resource id, its data) to another.
var T1 = check.Define(Check{
	ID: "T1", Group: "tenants", Level: check.MUST, Clause: "core (tenant isolation)",
	Title:    "should give a second tenant reusing a key its own resource or a refusal, never the first tenant's",
	Why:      "Clients choose keys, so two tenants can pick the same one; a server that scopes keys globally replays one tenant's answer, with its data, to another.",
	Fix:      "Scope the key record by tenant (a unique constraint on tenant and key), so a key is looked up only among the caller's own records.",
	Stimulus: "Tenant A creates with a key, then tenant B sends a create with the same key under its own credentials.",
	Proof:    "B's answer (its own resource or a refusal, never A's id or body) and the oracle's count for each tenant.",
	Needs: func(t *targets.Target) string {
		if len(t.Tenants) < 2 {
			return "the target declares fewer than two tenants: add tenants: with two credentials to the target file"
		}
		return ""
	},
	Plan: fixed(4),
	Run:  serverRun(tenantIsolation),
})

// T1: the second tenant sends the first tenant's request, same key and
// same bytes (a different payload would let a globally scoped server
// hide behind its mismatch refusal).
func tenantIsolation(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error) {
	a, b := e.Target.Tenants[0], e.Target.Tenants[1]
	asA, asB := targets.AsTenant(ctx, a), targets.AsTenant(ctx, b)
	key, marker := e.NewKey(), e.NewMarker("T1")
	body, err := e.Body(marker, "100")
	if err != nil {
		return check.Verdict{}, err
	}
	send := harness.Attempt{Step: a.Name + ": create", Lane: e.Clean, Key: key, Body: body, Variant: "100"}
	rec := TenantRecord{First: e.Send(asA, h, send)}
	send.Step = b.Name + ": the same key and bytes"
	rec.Second = e.Send(asB, h, send)
	if rec.FirstReading, err = reading(asA, e, ev, marker, "as "+a.Name); err != nil {
		return check.Verdict{}, err
	}
	if rec.SecondReading, err = reading(asB, e, ev, marker, "as "+b.Name); err != nil {
		return check.Verdict{}, err
	}
	v, notes := TenantIsolation(rec)
	ev.Notes = append(ev.Notes, notes...)
	return v, nil
}

// TenantRecord is what T1 saw: the first tenant's create, the second
// tenant's create with the same key and the same bytes, and what the
// oracle showed each tenant for the marker.
type TenantRecord struct {
	First, Second               history.Exchange
	FirstReading, SecondReading check.Reading
}

// TenantIsolation judges T1 on the answers: the second tenant got its own
// resource or a refusal, never the first tenant's, and the first tenant
// still has exactly its one resource.
//
// The oracle's views are used to count, not to judge leaks: many list
// endpoints are not scoped by tenant (an admin or service view, or a
// database oracle, lists every tenant's resources), so the second
// tenant's own resource may show in the first tenant's view, and the
// first tenant's in the second's. Each listed id is attributed to the
// tenant whose answer named it; the notes say when a view was shared.
func TenantIsolation(r TenantRecord) (check.Verdict, []string) {
	if r.First.Outcome != history.OK || !r.First.Is2xx() || r.First.ResourceID == "" {
		return check.Errored("T1", fmt.Errorf("the first tenant's create did not succeed with a resource id (%s %d): nothing to compare", r.First.Outcome, r.First.Status)), nil
	}
	if r.Second.Outcome != history.OK {
		return check.Errored("T1", fmt.Errorf("the second tenant's create got no answer (%s): %s", r.Second.Outcome, r.Second.Error)), nil
	}
	leaked := r.First.ResourceID
	var vs []check.Violation
	if r.Second.ResourceID == leaked || strings.Contains(r.Second.Body, leaked) {
		vs = append(vs, check.Violation{
			What:     "the second tenant's answer carries the first tenant's resource",
			Expected: "its own resource id or a refusal", Observed: fmt.Sprintf("%d with resource %s", r.Second.Status, leaked),
			Seqs: []int{r.First.Seq, r.Second.Seq},
		})
	}
	own := ""
	if r.Second.Is2xx() && r.Second.ResourceID != leaked {
		own = r.Second.ResourceID
	}
	if own != "" && r.SecondReading.IDs != nil && !slices.Contains(r.SecondReading.IDs, own) {
		vs = append(vs, check.Violation{
			What:     "the second tenant's resource is not in its own view",
			Expected: own, Observed: fmt.Sprintf("%v", r.SecondReading.IDs), Seqs: []int{r.Second.Seq},
		})
	}
	var notes []string
	// theirs: the second tenant's own resource, counted in the first
	// tenant's view.
	theirs := 0
	switch {
	case own == "":
	case r.FirstReading.IDs != nil && slices.Contains(r.FirstReading.IDs, own):
		theirs = 1
	case r.FirstReading.IDs == nil && r.FirstReading.Count == 2 && r.SecondReading.Count == 2:
		theirs = 1 // a count-only oracle that sees every tenant
	}
	if theirs > 0 || slices.Contains(r.SecondReading.IDs, leaked) {
		notes = append(notes, "the oracle's view is not scoped by tenant (it shows one tenant's resource to the other): each resource is attributed to the tenant whose answer named it")
	}
	if n := r.FirstReading.Count - theirs; n != 1 {
		vs = append(vs, check.Violation{
			What:     "the first tenant does not have exactly its one resource after the second tenant's create",
			Expected: "1", Observed: fmt.Sprint(n),
		})
	}
	return check.Judge("T1", vs...), notes
}
