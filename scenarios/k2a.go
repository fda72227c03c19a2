package scenarios

import (
	"context"
	"fmt"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
)

// K2a: §2.1: "Idempotency-Key is an Item Structured Header [RFC8941].
// Its value MUST be a String." and "Clients MUST NOT include more than
// one Idempotency-Key header field in the same request."; §5 recommends:
// "Establish a fixed format for the idempotency key and publish the key's
// specification." and "Always validate the key as per its published
// specification before processing any request."
var K2a = define(Check{
	ID: "K2a", Group: "keys", Level: check.SHOULD, Clause: "draft-ietf-httpapi-idempotency-key-header §2.1, §5",
	Title: "should refuse keys outside the declared format and duplicated key headers with a 4xx",
	Plan:  oddKeyPlan,
	Run:   oddKeysRefused,
})

// K2a: ... and are refused with a 4xx.
func oddKeysRefused(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error) {
	rec, err := oddKeyRecord(ctx, e, h, ev, "K2a")
	if err != nil {
		return check.Verdict{}, err
	}
	return OddKeysRefused(rec), nil
}

// OddKeysRefused judges K2a: every key outside the declared format was
// refused with a 4xx. Server errors and silence are K2's failures.
func OddKeysRefused(rec OddKeyRecord) check.Verdict {
	xs := make([]history.Exchange, len(rec.Keys))
	for i, k := range rec.Keys {
		xs[i] = k.Send
	}
	if err := unreached(xs); err != nil {
		return check.Errored("K2a", err)
	}
	var vs []check.Violation
	for _, k := range rec.Keys {
		x := k.Send
		if k.InFormat || x.Outcome != history.OK || x.Status >= 400 {
			continue
		}
		vs = append(vs, check.Violation{
			What: fmt.Sprintf("a key (%s) was accepted", k.Case), Expected: "a 4xx",
			Observed: fmt.Sprint(x.Status), Seqs: []int{x.Seq},
		})
	}
	return check.Judge("K2a", vs...)
}
