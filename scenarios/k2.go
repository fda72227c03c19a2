package scenarios

import (
	"context"
	"fmt"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
)

// K2: §5: "Injection attacks-When the resource server does not validate
// the idempotency key in the client request and performs a idempotent
// cache lookup, there can be security attacks (primarily in the form of
// injection), compromising the server." A malformed key is the client's
// error: answering it with a 5xx, or dropping the connection, is the
// server failing on input it must survive.
var K2 = check.Define(Check{
	ID: "K2", Group: "keys", Level: check.MUST, Clause: "core; draft-ietf-httpapi-idempotency-key-header §5",
	Title:    "should answer malformed keys without a server error or a dropped connection",
	Why:      "A server that fails on an odd key (a 500, a dropped connection) can be broken by any client, and its cache look-up may be open to injection.",
	Fix:      "Validate the key's format and length before it reaches any look-up, and answer a key outside them with a 4xx.",
	Stimulus: "Sends creates with malformed keys: empty, 256 and 1024 characters, non-ASCII, inner whitespace and others.",
	Proof:    "An answer to every request, and none a 5xx.",
	Plan:     oddKeyPlan,
	Run:      recordRun("K2", oddKeyRecord, OddKeysSurvived),
})

// oddKeyPlan is K2's and K2a's plan: one create per malformed key, and
// an oracle read.
func oddKeyPlan(p Planning) check.Plan {
	n := harness.MalformedKeyCount(p.Target) + 1
	return check.Plan{Requests: n, MaxRequests: n}
}

// oddKeyRecord sends one create per malformed key.
func oddKeyRecord(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence, scope string) (OddKeyRecord, error) {
	marker := e.NewMarker(scope)
	body, err := e.Body(marker, "100")
	if err != nil {
		return OddKeyRecord{}, err
	}
	var rec OddKeyRecord
	for _, c := range harness.MalformedKeys(e) {
		// Each on a new connection: a drop is then this key's answer.
		x := e.Send(ctx, h, harness.Attempt{
			Step: "key: " + c.Name, Lane: e.Clean, Key: c.Values[0], Keys: c.Values, Body: body, Variant: "100", Fresh: true,
		})
		rec.Keys = append(rec.Keys, OddKey{Case: c.Name, Send: x, InFormat: c.InFormat(e), May: c.May})
	}
	rec.Reading, err = reading(ctx, e, ev, marker, "after the malformed keys")
	return rec, err
}

// OddKey is one create sent with a malformed key.
type OddKey struct {
	Case string // what is odd about it: "empty", "256 characters", ...
	Send history.Exchange
	// InFormat is set when the target's declared format accepts the key
	// after all: accepting it is then no fault.
	InFormat bool
	// May says why accepting it is no fault either (two key headers).
	May string
}

// OddKeyRecord is what K2 and K2a observed: one create per malformed key,
// all carrying one marker, and the oracle's count for it.
type OddKeyRecord struct {
	Keys    []OddKey
	Reading check.Reading
}

// OddKeysSurvived judges K2: no malformed key got a 5xx or a dropped
// connection, and no refused request created anything.
func OddKeysSurvived(rec OddKeyRecord) check.Verdict {
	xs := make([]history.Exchange, len(rec.Keys))
	for i, k := range rec.Keys {
		xs[i] = k.Send
	}
	if err := unreached(xs); err != nil {
		return check.Errored("K2", err)
	}
	var vs []check.Violation
	var missing []history.Exchange
	accepted := map[string]bool{}
	for _, k := range rec.Keys {
		x := k.Send
		switch {
		case x.Outcome != history.OK && (x.TimedOut || x.Reused):
			// No answer in time is no answer at all, not a dropped
			// connection: maybe applied, and the count below judges it.
			// So is a drop on a reused keep-alive connection: the server
			// may have closed it as idle while the request was on its way.
			missing = append(missing, x)
		case x.Outcome != history.OK:
			vs = append(vs, check.Violation{
				What: fmt.Sprintf("a key (%s) got no answer", k.Case), Expected: "an HTTP response",
				Observed: fmt.Sprintf("%s: %s", x.Outcome, x.Error), Seqs: []int{x.Seq},
			})
		case x.Status >= 500:
			vs = append(vs, check.Violation{
				What: fmt.Sprintf("a key (%s) was answered with a server error", k.Case), Expected: "a 4xx (or acceptance)",
				Observed: fmt.Sprint(x.Status), Seqs: []int{x.Seq},
			})
		case x.Is2xx():
			accepted[x.ResourceID] = true
		}
	}
	// A key with no answer in time may have been accepted.
	if len(vs) == 0 && rec.Reading.Count > len(accepted)+len(missing) {
		vs = append(vs, check.Violation{
			What:     fmt.Sprintf("refused keys created resources: the oracle (%s) counts %d, the answers accepted %d", rec.Reading.Oracle, rec.Reading.Count, len(accepted)),
			Expected: fmt.Sprint(len(accepted) + len(missing)), Observed: fmt.Sprint(rec.Reading.Count),
		})
	}
	return judged("K2", vs, missing)
}
