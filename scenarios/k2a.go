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
// one Idempotency-Key header field in the same request." (the client's
// rule: a server that takes one of two key headers is not charged, see
// harness.DuplicatedHeaderMay); §5 recommends:
// "Establish a fixed format for the idempotency key and publish the key's
// specification." and "Always validate the key as per its published
// specification before processing any request."
var K2a = check.Define(Check{
	ID: "K2a", Group: "keys", Level: check.SHOULD, Clause: "draft-ietf-httpapi-idempotency-key-header §2.1, §5",
	Title:    "should refuse keys outside the declared format with a 4xx (two key headers: either way, a MAY)",
	Why:      "A key outside the published format is a client bug that a lenient server turns into a silent mismatch.",
	Fix:      "Publish the key's format, validate every key against it, and refuse one outside it with a 4xx. Two key headers you may refuse or take one of: the draft leaves it to the server.",
	Stimulus: "Sends keys outside the declared format, and a request with the key header twice (noted, not judged).",
	Proof:    "A 4xx for each key outside the format.",
	Plan:     oddKeyPlan,
	Run:      serverRun(oddKeysRefused),
})

// K2a: ... and are refused with a 4xx.
func oddKeysRefused(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error) {
	rec, err := oddKeyRecord(ctx, e, h, ev, "K2a")
	if err != nil {
		return check.Verdict{}, err
	}
	ev.Notes = append(ev.Notes, OddKeyNotes(rec)...)
	return OddKeysRefused(rec), nil
}

// OddKeyNotes say what K2a did not charge: each key a target may accept
// or refuse (two key headers), what it did, and why either is right.
func OddKeyNotes(rec OddKeyRecord) []string {
	var notes []string
	for _, k := range rec.Keys {
		x := k.Send
		if k.May == "" || x.Outcome != history.OK || x.Status >= 500 {
			continue // a 5xx or no answer is K2's
		}
		did := fmt.Sprintf("refused (%d)", x.Status)
		if x.Is2xx() {
			did = fmt.Sprintf("accepted (%d)", x.Status)
		}
		notes = append(notes, fmt.Sprintf("a key (%s) was %s, request %d: not charged, %s", k.Case, did, x.Seq, k.May))
	}
	return notes
}

// OddKeysRefused judges K2a: every key outside the declared format was
// refused with a 4xx; a key the target may accept (two key headers) is
// not judged (OddKeyNotes). Server errors and silence are K2's failures;
// when they are all there is, no refusal came and K2a is SKIP with that
// reason, as it is when the declared format takes every key sent (no
// format declared: only a duplicated key header is outside the draft's
// grammar, a MAY, and a body or a query has no such form).
func OddKeysRefused(rec OddKeyRecord) check.Verdict {
	xs := make([]history.Exchange, len(rec.Keys))
	for i, k := range rec.Keys {
		xs[i] = k.Send
	}
	if err := unreached(xs); err != nil {
		return check.Errored("K2a", err)
	}
	var vs []check.Violation
	var outside, judged int
	for _, k := range rec.Keys {
		x := k.Send
		if k.InFormat || k.May != "" {
			continue
		}
		outside++
		if x.Outcome != history.OK || x.Status >= 500 {
			continue // K2's failure: no answer to judge
		}
		judged++
		if x.Status >= 400 {
			continue
		}
		vs = append(vs, check.Violation{
			What: fmt.Sprintf("a key (%s) was accepted", k.Case), Expected: "a 4xx",
			Observed: fmt.Sprint(x.Status), Seqs: []int{x.Seq},
		})
	}
	switch {
	case outside == 0:
		return check.Skip("K2a", fmt.Sprintf("each of the %d odd keys sent is within the target's declared key format or one it may accept (with none declared, only two key headers break the draft's grammar, and accepting them is a MAY; a key in a body or a query has no such form), so none had to be refused", len(rec.Keys)))
	case judged == 0:
		return check.Skip("K2a", fmt.Sprintf("K2 fails here: each of the %d keys outside the format got a server error or no answer, so no refusal came to judge", outside))
	}
	return check.Judge("K2a", vs...)
}
