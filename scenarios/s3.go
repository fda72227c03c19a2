package scenarios

import (
	"context"
	"fmt"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
)

// S3: "same key, different payload: rejected with a 4xx, no new resource,
// original untouched and still replayable". The MUST is the refusal and
// its effects: nothing executed, the original's resource kept. Draft §2.7
// names the status ("If there is an attempt to reuse an idempotency key
// with a different request payload, the resource server SHOULD reply with
// a HTTP 422 status code"), a SHOULD, judged by S3a.
var S3 = check.Define(Check{
	ID: "S3", Group: "core", Level: check.MUST, Clause: "core; draft-ietf-httpapi-idempotency-key-header §2.2, §2.7",
	Title:    "should reject a reused key with a different payload and keep the original",
	Why:      "A key reused with another payload (a client bug, a key derived from too little) either executes the second request or returns the first one's result, and the caller believes the wrong operation happened.",
	Fix:      "Store a fingerprint of the request payload with the key, compare it on every request with that key, and refuse a mismatch with a 4xx (422) without executing it.",
	Stimulus: "Sends a create, the same key with a different payload, then the original again.",
	Proof:    "The mismatch refused with a 4xx, the oracle still counting one resource, and the original still replayed with its id.",
	Plan:     fixed(4),
	Run:      recordRun("S3", mismatchRecord, MismatchRejected),
})

func mismatchRecord(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence, scope string) (MismatchRecord, error) {
	key, marker := e.NewKey(), e.NewMarker(scope)
	original, err := e.Body(marker, "100")
	if err != nil {
		return MismatchRecord{}, err
	}
	other, err := e.Body(marker, "200")
	if err != nil {
		return MismatchRecord{}, err
	}
	send := func(step, variant string, body []byte) history.Exchange {
		return e.Send(ctx, h, harness.Attempt{Step: step, Lane: e.Clean, Key: key, Body: body, Variant: variant})
	}
	rec := MismatchRecord{
		Original: send("original", "100", original),
		Mismatch: send("same key, other payload", "200", other),
		Again:    send("original again", "100", original),
		Want:     e.Target.Profile.Mismatch,
	}
	rec.Reading, err = reading(ctx, e, ev, marker, "after the mismatch")
	return rec, err
}

// MismatchRecord is what S3 and S3a observed: the original request, the
// same key with another payload, and the original request once more.
type MismatchRecord struct {
	Original history.Exchange
	Mismatch history.Exchange
	Again    history.Exchange
	Reading  check.Reading
	Want     int // the status the profile expects for a mismatch
}

// mismatchRan returns the verdict of a run that cannot be judged: the
// target unreachable, or the original refused (nothing to reuse the key
// against).
func mismatchRan(id string, rec MismatchRecord) (check.Verdict, bool) {
	if err := unreached([]history.Exchange{rec.Original, rec.Mismatch, rec.Again}); err != nil {
		return check.Errored(id, err), false
	}
	if rec.Original.Outcome == history.OK && !rec.Original.Is2xx() {
		return check.Errored(id, fmt.Errorf("the original request was not accepted (status %d), so there is nothing to reuse the key against", rec.Original.Status)), false
	}
	return check.Verdict{}, true
}

// MismatchRejected judges S3: the other payload was refused (any 4xx),
// created nothing, and the original is still replayed with its resource.
// Which 4xx is S3a's business; how faithfully the original is replayed,
// K4's.
func MismatchRejected(rec MismatchRecord) check.Verdict {
	if v, ok := mismatchRan("S3", rec); !ok {
		return v
	}
	missing := unanswered([]history.Exchange{rec.Original, rec.Mismatch, rec.Again})
	var vs []check.Violation
	m := rec.Mismatch
	switch {
	// Any 4xx refuses; so does the profile's own status, whatever it is
	// (powertools answers a mismatch with 500).
	case m.Outcome != history.OK, is4xx(m.Status), m.Status == rec.Want:
	case m.Is2xx():
		vs = append(vs, check.Violation{What: "a reused key with another payload was accepted", Expected: "a refusal (4xx)", Observed: answerOf(m), Seqs: []int{m.Seq}})
	default:
		vs = append(vs, check.Violation{What: "a reused key with another payload was not refused", Expected: "a refusal (4xx)", Observed: fmt.Sprint(m.Status), Seqs: []int{m.Seq}})
	}
	// Without the original's answer, its id is unknown: the oracle's
	// count judges what the other payload created.
	known := rec.Original.Is2xx()
	if known && m.Is2xx() && m.ResourceID != "" && m.ResourceID != rec.Original.ResourceID {
		vs = append(vs, check.Violation{What: "the other payload created another resource", Expected: rec.Original.ResourceID, Observed: m.ResourceID, Seqs: []int{m.Seq}})
	}
	if a := rec.Again; known && a.Outcome == history.OK && (!a.Is2xx() || a.ResourceID != rec.Original.ResourceID) {
		vs = append(vs, check.Violation{
			What:     "the original request is no longer replayed after the mismatch",
			Expected: fmt.Sprintf("2xx with id %s", rec.Original.ResourceID),
			Observed: fmt.Sprintf("%d with id %q", a.Status, a.ResourceID),
			Seqs:     []int{a.Seq},
		})
	}
	vs = append(vs, countsOneOrNone(rec.Reading, rec.Original.ResourceID, missing)...)
	return judged("S3", vs, missing)
}
