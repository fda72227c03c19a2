package scenarios

import (
	"context"
	"fmt"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
)

// K1: §2.7: "Error scenarios above describe the status of failed
// idempotent requests after the resource server prcocesses them. Clients
// MUST correct the requests (with the exception of 409 where no
// correction is required) before performing a retry operation, or the the
// resource server MUST fail the request and return one of the above
// errors." A create without a required key must fail: no 2xx, nothing
// created.
var K1 = check.Define(Check{
	ID: "K1", Group: "keys", Level: check.MUST, Clause: "draft-ietf-httpapi-idempotency-key-header §2.7",
	Title:    "should refuse a create without the required key and create nothing",
	Why:      "A create that runs without its required key is unprotected: its retry creates a duplicate.",
	Fix:      "Refuse a create that lacks the required key before any work is done (a middleware in front of the handler), with a 4xx.",
	Stimulus: "Sends a create without the key.",
	Proof:    "No 2xx answer, and the oracle counting no resource for its marker.",
	Needs:    keyRequired,
	Plan:     fixed(2),
	Run:      recordRun("K1", missingKeyRecord, MissingKeyRefused),
})

func missingKeyRecord(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence, scope string) (MissingKeyRecord, error) {
	marker := e.NewMarker(scope)
	body, err := e.Body(marker, "100")
	if err != nil {
		return MissingKeyRecord{}, err
	}
	x := e.Send(ctx, h, harness.Attempt{Step: "create without a key", Lane: e.Clean, Body: body, Variant: "100"})
	r, err := reading(ctx, e, ev, marker, "after the create without a key")
	if err != nil {
		return MissingKeyRecord{}, err
	}
	return MissingKeyRecord{Send: x, Reading: r, Want: e.Target.Profile.MissingKey}, nil
}

// MissingKeyRecord is what K1 and K1a observed: one create without the key.
type MissingKeyRecord struct {
	Send    history.Exchange
	Reading check.Reading
	Want    int // the profile's missing-key status
}

// MissingKeyRefused judges K1: the keyless create failed and created
// nothing.
func MissingKeyRefused(rec MissingKeyRecord) check.Verdict {
	xs := []history.Exchange{rec.Send}
	if err := unreached(xs); err != nil {
		return check.Errored("K1", err)
	}
	missing := unanswered(xs)
	var vs []check.Violation
	if rec.Send.Is2xx() {
		vs = append(vs, check.Violation{
			What: "a create without the required key was accepted", Expected: "a 4xx",
			Observed: fmt.Sprint(rec.Send.Status), Seqs: []int{rec.Send.Seq},
		})
	}
	if rec.Reading.Count != 0 {
		vs = append(vs, check.Violation{
			What:     fmt.Sprintf("the oracle (%s) counts %d resources created without the key", rec.Reading.Oracle, rec.Reading.Count),
			Expected: "0", Observed: fmt.Sprint(rec.Reading.Count),
		})
	}
	return judged("K1", vs, missing)
}
