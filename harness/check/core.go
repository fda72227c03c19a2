package check

import (
	"fmt"

	"github.com/idemspec/idemspec/harness/history"
)

// The core guarantee, scenarios S1-S4. The clause "core" means the
// guarantee idempotency exists for; the IETF draft sections are named
// where the draft says it.

// S1: "the same request (same key, same bytes) sent N times in sequence:
// exactly one resource exists; every 2xx carries the same resource id".
var S1 = Register(Check{
	ID: "S1", Group: "core", Level: MUST, Clause: "core; draft-ietf-httpapi-idempotency-key-header §2",
	Title: "should create exactly one resource when the same request is sent again and again with one key",
})

// S2: "first response is lost after the server finished, then a retry
// with the same key: the retry returns the original resource id".
var S2 = Register(Check{
	ID: "S2", Group: "core", Level: MUST, Clause: "core; draft-ietf-httpapi-idempotency-key-header §2.6",
	Title: "should replay the original result to a retry whose first response was lost",
})

// S3: "same key, different payload: rejected with a 4xx, no new resource,
// original untouched and still replayable". The MUST is the refusal and
// its effects: nothing executed, the original's resource kept. Draft §2.7
// names the status ("If there is an attempt to reuse an idempotency key
// with a different request payload, the resource server SHOULD reply with
// a HTTP 422 status code"), a SHOULD, judged by S3a.
var S3 = Register(Check{
	ID: "S3", Group: "core", Level: MUST, Clause: "core; draft-ietf-httpapi-idempotency-key-header §2.2, §2.7",
	Title: "should reject a reused key with a different payload and keep the original",
})

// S3a: §2.7: "If there is an attempt to reuse an idempotency key with a
// different request payload, the resource server SHOULD reply with a HTTP
// 422 status code with body containing a link pointing to relevant
// documentation." (The profile names the code.)
var S3a = Register(Check{
	ID: "S3a", Group: "core", Level: SHOULD, Clause: "draft-ietf-httpapi-idempotency-key-header §2.7",
	Title: "should refuse a reused key with a different payload with the profile's mismatch status",
})

// S4: "N requests with one key released at the same instant: exactly one
// resource; every 2xx carries the same id; the others are 409 or replays".
// The others must be refusals (4xx, or the profile's in-flight status);
// which refusal status they carry is judged by K5, not here.
var S4 = Register(Check{
	ID: "S4", Group: "core", Level: MUST, Clause: "core; draft-ietf-httpapi-idempotency-key-header §2.7 (concurrent requests)",
	Title: "should execute a burst of concurrent same-key requests exactly once",
})

// OneResource judges S1 over the sequential sends of one request.
func OneResource(sends []history.Exchange, r Reading) Verdict {
	if err := unreached(sends); err != nil {
		return Errored(S1.ID, err)
	}
	vs := unanswered(sends)
	for _, x := range sends {
		if x.Outcome == history.OK && !x.Is2xx() {
			vs = append(vs, Violation{
				What:     fmt.Sprintf("%s: an identical request was not answered as a success", x.Step),
				Expected: "2xx (the original answer, replayed)",
				Observed: fmt.Sprint(x.Status),
				Seqs:     []int{x.Seq},
			})
		}
	}
	id, idv := sameID(sends)
	vs = append(vs, idv...)
	vs = append(vs, oneResource(r, id)...)
	return Judge(S1.ID, vs...)
}

// LossRun is what S2 observed: the attempts whose answer was lost, the
// same-key retries that followed (in-flight answers included), and one
// more retry after the first success, to compare replays.
type LossRun struct {
	Lost     []history.Exchange
	Retries  []history.Exchange
	Replay   history.Exchange
	Reading  Reading
	InFlight int // the status the target uses for "still in flight"
}

// ReplayAfterLoss judges S2.
func ReplayAfterLoss(run LossRun) Verdict {
	all := append(append([]history.Exchange(nil), run.Retries...), run.Replay)
	if err := unreached(all); err != nil {
		return Errored(S2.ID, err)
	}
	vs := unanswered(all)
	var final *history.Exchange
	for i, x := range run.Retries {
		switch {
		case x.Is2xx():
			final = &run.Retries[i]
		case x.Outcome == history.OK && x.Status != run.InFlight:
			vs = append(vs, Violation{
				What:     fmt.Sprintf("%s: the retry after a lost response was refused", x.Step),
				Expected: fmt.Sprintf("2xx, or %d while the first request is still in flight", run.InFlight),
				Observed: fmt.Sprint(x.Status),
				Seqs:     []int{x.Seq},
			})
		}
	}
	if final == nil && len(vs) == 0 {
		vs = append(vs, Violation{What: "no retry got a successful answer before the harness gave up", Expected: "2xx", Observed: "only in-flight answers"})
	}
	id, idv := sameID(all)
	vs = append(vs, idv...)
	vs = append(vs, oneResource(run.Reading, id)...)
	// The second retry must get the original result again; sameID holds
	// it to the same resource. How faithfully the answer is replayed
	// (status, body, headers) is K4's to judge.
	if final != nil && run.Replay.Outcome == history.OK && !run.Replay.Is2xx() {
		vs = append(vs, Violation{
			What: "a second retry was refused after the first got the original result", Expected: "2xx with the original resource",
			Observed: fmt.Sprint(run.Replay.Status), Seqs: []int{final.Seq, run.Replay.Seq},
		})
	}
	return Judge(S2.ID, vs...)
}

// MismatchRun is what S3 and S3a observed: the original request, the
// same key with another payload, and the original request once more.
type MismatchRun struct {
	Original history.Exchange
	Mismatch history.Exchange
	Again    history.Exchange
	Reading  Reading
	Want     int // the status the profile expects for a mismatch
}

// mismatchRan returns the verdict of a run that cannot be judged: the
// target unreachable, or the original refused (nothing to reuse the key
// against).
func mismatchRan(id string, run MismatchRun) (Verdict, bool) {
	if err := unreached([]history.Exchange{run.Original, run.Mismatch, run.Again}); err != nil {
		return Errored(id, err), false
	}
	if run.Original.Outcome == history.OK && !run.Original.Is2xx() {
		return Errored(id, fmt.Errorf("the original request was not accepted (status %d), so there is nothing to reuse the key against", run.Original.Status)), false
	}
	return Verdict{}, true
}

// MismatchRejected judges S3: the other payload was refused (any 4xx),
// created nothing, and the original is still replayed with its resource.
// Which 4xx is S3a's business; how faithfully the original is replayed,
// K4's.
func MismatchRejected(run MismatchRun) Verdict {
	if v, ok := mismatchRan(S3.ID, run); !ok {
		return v
	}
	vs := unanswered([]history.Exchange{run.Original, run.Mismatch, run.Again})
	m := run.Mismatch
	switch {
	// Any 4xx refuses; so does the profile's own status, whatever it is
	// (powertools answers a mismatch with 500).
	case m.Outcome != history.OK, is4xx(m.Status), m.Status == run.Want:
	case m.Is2xx():
		vs = append(vs, Violation{What: "a reused key with another payload was accepted", Expected: "a refusal (4xx)", Observed: answerOf(m), Seqs: []int{m.Seq}})
	default:
		vs = append(vs, Violation{What: "a reused key with another payload was not refused", Expected: "a refusal (4xx)", Observed: fmt.Sprint(m.Status), Seqs: []int{m.Seq}})
	}
	if m.Is2xx() && m.ResourceID != "" && m.ResourceID != run.Original.ResourceID {
		vs = append(vs, Violation{What: "the other payload created another resource", Expected: run.Original.ResourceID, Observed: m.ResourceID, Seqs: []int{m.Seq}})
	}
	if a := run.Again; a.Outcome == history.OK && (!a.Is2xx() || a.ResourceID != run.Original.ResourceID) {
		vs = append(vs, Violation{
			What:     "the original request is no longer replayed after the mismatch",
			Expected: fmt.Sprintf("2xx with id %s", run.Original.ResourceID),
			Observed: fmt.Sprintf("%d with id %q", a.Status, a.ResourceID),
			Seqs:     []int{a.Seq},
		})
	}
	vs = append(vs, oneResource(run.Reading, run.Original.ResourceID)...)
	return Judge(S3.ID, vs...)
}

// MismatchStatus judges S3a: a refusal of the other payload carries the
// profile's mismatch status. An accepted or unrefused mismatch is S3's
// failure, not judged again here.
func MismatchStatus(run MismatchRun) Verdict {
	if v, ok := mismatchRan(S3a.ID, run); !ok {
		return v
	}
	m := run.Mismatch
	if m.Outcome != history.OK || !is4xx(m.Status) || m.Status == run.Want {
		return Judge(S3a.ID)
	}
	return Judge(S3a.ID, Violation{
		What:     "a reused key with another payload was refused with another status than the profile's",
		Expected: fmt.Sprint(run.Want), Observed: fmt.Sprint(m.Status), Seqs: []int{m.Seq},
	})
}

// BurstRun is one same-key burst as S4 observed it, with the follow-up
// request sent after the burst settled.
type BurstRun struct {
	Burst    history.Burst
	Sends    []history.Exchange
	FollowUp history.Exchange
	Reading  Reading
	InFlight int
}

// NoRaceDuplicates judges S4 over one or more bursts.
func NoRaceDuplicates(runs ...BurstRun) Verdict {
	var all []history.Exchange
	for _, r := range runs {
		all = append(all, r.Sends...)
	}
	if err := unreached(all); err != nil {
		return Errored(S4.ID, err)
	}
	var vs []Violation
	for _, r := range runs {
		label := fmt.Sprintf("burst of %d on the %s lane", r.Burst.Size, r.Burst.Lane)
		if r.Burst.Fault != "" {
			label += " with " + r.Burst.Fault
		}
		xs := append(append([]history.Exchange(nil), r.Sends...), r.FollowUp)
		vs = append(vs, unanswered(xs)...)
		// A refusal (4xx) executed nothing, which is all S4 asks; whether
		// it carried the profile's in-flight status is K5's judgement.
		for _, x := range r.Sends {
			if x.Outcome == history.OK && !x.Is2xx() && !is4xx(x.Status) && x.Status != r.InFlight {
				vs = append(vs, Violation{
					What:     fmt.Sprintf("%s: %s was neither a success nor a refusal", label, x.Step),
					Expected: fmt.Sprintf("2xx, 4xx or %d", r.InFlight),
					Observed: fmt.Sprint(x.Status),
					Seqs:     []int{x.Seq},
				})
			}
		}
		if r.FollowUp.Outcome == history.OK && !r.FollowUp.Is2xx() {
			vs = append(vs, Violation{
				What:     label + ": the request after the burst was not answered with the stored result",
				Expected: "2xx", Observed: fmt.Sprint(r.FollowUp.Status), Seqs: []int{r.FollowUp.Seq},
			})
		}
		id, idv := sameID(xs)
		for i := range idv {
			idv[i].What = label + ": " + idv[i].What
		}
		vs = append(vs, idv...)
		for _, v := range oneResource(r.Reading, id) {
			v.What = label + ": " + v.What
			vs = append(vs, v)
		}
	}
	return Judge(S4.ID, vs...)
}
