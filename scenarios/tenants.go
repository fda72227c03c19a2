package scenarios

import (
	"context"

	. "github.com/onsi/ginkgo/v2"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/targets"
)

var _ = Describe("tenants", func() {
	It(check.T1.Title, labels(check.T1), SpecTimeout(specTimeout), run(check.T1, tenantIsolation))
})

// T1: the second tenant sends the first tenant's request, same key and
// same bytes (a different payload would let a globally scoped server
// hide behind its mismatch refusal).
func tenantIsolation(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error) {
	if len(e.Target.Tenants) < 2 {
		return check.Skip(check.T1.ID, "the target declares fewer than two tenants: add tenants: with two credentials to the target file"), nil
	}
	a, b := e.Target.Tenants[0], e.Target.Tenants[1]
	asA, asB := targets.AsTenant(ctx, a), targets.AsTenant(ctx, b)
	key, marker := e.NewKey(), e.NewMarker(check.T1.ID)
	body, err := e.Body(marker, "100")
	if err != nil {
		return check.Verdict{}, err
	}
	send := harness.Attempt{Step: a.Name + ": create", Lane: e.Clean, Key: key, Body: body, Variant: "100"}
	run := check.TenantRun{First: e.Send(asA, h, send)}
	send.Step = b.Name + ": the same key and bytes"
	run.Second = e.Send(asB, h, send)
	if run.FirstReading, err = reading(asA, e, ev, marker, "as "+a.Name); err != nil {
		return check.Verdict{}, err
	}
	if run.SecondReading, err = reading(asB, e, ev, marker, "as "+b.Name); err != nil {
		return check.Verdict{}, err
	}
	v, notes := check.TenantIsolation(run)
	ev.Notes = append(ev.Notes, notes...)
	return v, nil
}
