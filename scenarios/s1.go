package scenarios

import (
	"context"
	"fmt"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
)

// S1: "the same request (same key, same bytes) sent N times in sequence:
// exactly one resource exists; every 2xx carries the same resource id".
var S1 = check.Define(Check{
	ID: "S1", Group: "core", Level: check.MUST, Clause: "core; draft-ietf-httpapi-idempotency-key-header §2",
	Title:    "should create exactly one resource when the same request is sent again and again with one key",
	Why:      "A client that sends a request again (a retry after a slow answer, a double click) creates a second order, charge or message.",
	Fix:      "Store the key with the created resource's id under a unique constraint on the key, and answer every later request with that key from the stored record instead of executing it again.",
	Stimulus: "Sends the same request, one key and the same bytes, several times in sequence (--repeats) on the clean lane.",
	Proof:    "The oracle's count of resources carrying the request's marker (exactly one) and the id in every 2xx answer (all the same).",
	Plan:     func(p Planning) check.Plan { n := p.Tuning.Repeats + 1; return check.Plan{Requests: n, MaxRequests: n} },
	Run:      serverRunWith(oneResource),
})

// S1: the same request, sent again and again in sequence.
func oneResource(ctx context.Context, in Inputs, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error) {
	key, marker := e.NewKey(), e.NewMarker("S1")
	body, err := e.Body(marker, "100")
	if err != nil {
		return check.Verdict{}, err
	}
	for i := 1; i <= in.Tuning.Repeats; i++ {
		e.Send(ctx, h, harness.Attempt{Step: fmt.Sprintf("send %d", i), Lane: e.Clean, Key: key, Body: body})
	}
	r, err := reading(ctx, e, ev, marker, "after the sends")
	if err != nil {
		return check.Verdict{}, err
	}
	return OneResource(h.Exchanges(), r), nil
}

// OneResource judges S1 over the sequential sends of one request.
func OneResource(sends []history.Exchange, r check.Reading) check.Verdict {
	if err := unreached(sends); err != nil {
		return check.Errored("S1", err)
	}
	missing := unanswered(sends)
	var vs []check.Violation
	for _, x := range sends {
		if x.Outcome == history.OK && !x.Is2xx() {
			vs = append(vs, check.Violation{
				What:     fmt.Sprintf("%s: an identical request was not answered as a success", x.Step),
				Expected: "2xx (the original answer, replayed)",
				Observed: fmt.Sprint(x.Status),
				Seqs:     []int{x.Seq},
			})
		}
	}
	id, idv := sameID(sends)
	vs = append(vs, idv...)
	vs = append(vs, countsOneOrNone(r, id, missing)...)
	return judged("S1", vs, missing)
}
