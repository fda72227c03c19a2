package scenarios

import (
	"context"
	"fmt"
	"net/http"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/targets"
)

// K6: §2.6: the retry gets "the result of the previously completed
// operation, success or an error"; §2.7: "For other 4xx/5xx errors, such
// as 401, 403, 500, 502, 503, 504, 429, or any other HTTP error code that
// is not listed here, the client SHOULD act appropriately by following
// the resource server's documentation." Whether a failed attempt is
// stored and replayed or retried afresh is the server's choice (reported);
// either way one key never executes twice, and an answer that says
// "failed" is not left standing over a resource that exists.
var K6 = check.Define(Check{
	ID: "K6", Group: "keys", Level: check.MUST, Clause: "core; draft-ietf-httpapi-idempotency-key-header §2.6, §2.7",
	Title:    "should execute at most once when retries follow a first attempt that failed with a 5xx",
	Why:      "A first attempt that failed with a 5xx may have applied anyway: a retry that executes again makes two, and an error left standing over a resource that exists misleads the client.",
	Fix:      "Store the failure as the key's result and replay it, or roll the key record back in the same transaction as the effect, so the retry runs exactly once.",
	Stimulus: "Makes the first attempt fail with a 5xx through the target's fail_trigger, then retries with the same key.",
	Proof:    "The oracle's count (at most one resource) and the retries' answers.",
	Needs: func(t *targets.Target) string {
		if t.FailTrigger == nil {
			return "the target declares no fail_trigger: idemspec cannot make a create fail on purpose"
		}
		return ""
	},
	Plan: func(p Planning) check.Plan {
		return check.Plan{Requests: 4, MaxRequests: 3 + harness.MaxSettleAttempts, Faults: []string{"fail trigger " + p.Target.FailTrigger.Header + " on the first attempt"}}
	},
	Run: serverRun(failedFirstAttempt),
})

// K6: a first attempt made to fail, then retries without the trigger.
func failedFirstAttempt(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error) {
	trigger := e.Target.FailTrigger
	key, marker := e.NewKey(), e.NewMarker("K6")
	body, err := e.Body(marker, "100")
	if err != nil {
		return check.Verdict{}, err
	}
	ev.Faults = append(ev.Faults, fmt.Sprintf("fail trigger %s: %s on the first attempt only", trigger.Header, trigger.Value))
	first := e.Send(ctx, h, harness.Attempt{
		Step: "first (made to fail)", Lane: e.Clean, Key: key, Body: body, Variant: "100",
		Header: http.Header{http.CanonicalHeaderKey(trigger.Header): {trigger.Value}},
	})
	retry := harness.Attempt{Step: "retry", Lane: e.Clean, Key: key, Body: body, Variant: "100"}
	retries := e.SendUntilSettled(ctx, h, retry, e.Target.InProgressTimeout+e.Settings.RequestTimeout)
	retry.Step = "second retry"
	again := e.Send(ctx, h, retry)
	r, err := reading(ctx, e, ev, marker, "after the retries")
	if err != nil {
		return check.Verdict{}, err
	}
	v, notes := FailedFirstAttempt(FailedFirstRecord{
		First: first, Retries: retries, Again: again, Reading: r, InFlight: e.Target.Profile.InFlight,
		Convention: e.Target.Profile.FailedAttempt,
	})
	ev.Notes = append(ev.Notes, notes...)
	return v, nil
}

// FailedFirstRecord is what K6 observed: a first attempt made to fail with a
// 5xx before it took effect, then the same request (without the trigger)
// until it settled, and once more.
type FailedFirstRecord struct {
	First    history.Exchange
	Retries  []history.Exchange
	Again    history.Exchange
	Reading  check.Reading
	InFlight int
	// Convention is what the profile does after a failed attempt
	// ("replayed" or "retried"); the evidence says whether it matched.
	Convention string
}

// FailedFirstAttempt judges K6 and says, for the evidence, whether the
// target stored and replayed the failure or retried afresh.
func FailedFirstAttempt(rec FailedFirstRecord) (check.Verdict, []string) {
	all := append([]history.Exchange{rec.First}, rec.Retries...)
	all = append(all, rec.Again)
	if err := unreached(all); err != nil {
		return check.Errored("K6", err), nil
	}
	f := rec.First
	if f.Outcome != history.OK || f.Status < 500 {
		return check.Errored("K6", fmt.Errorf("the fail trigger did not make the first attempt fail with a 5xx (%s), so K6 cannot run", answerOf(f))), nil
	}
	later := append(append([]history.Exchange(nil), rec.Retries...), rec.Again)
	if missing := unanswered(later); len(missing) > 0 || len(rec.Retries) == 0 {
		return judged("K6", nil, missing), nil
	}
	var vs []check.Violation
	final := rec.Retries[len(rec.Retries)-1]
	// A stored failure replayed is the same status again; whether its
	// body is replayed faithfully is K4's kind of question, not K6's.
	replayed := final.Status == f.Status
	var mode string
	switch {
	case final.Is2xx():
		mode = "retried"
		id, idv := sameID(later)
		vs = append(vs, idv...)
		vs = append(vs, countsOne(rec.Reading, id)...)
	case replayed:
		mode = "replayed"
		if rec.Reading.Count != 0 {
			vs = append(vs, check.Violation{
				What:     fmt.Sprintf("every answer says the create failed, yet the oracle (%s) counts %d resources: a client that believes it will create again under a new key", rec.Reading.Oracle, rec.Reading.Count),
				Expected: "0", Observed: fmt.Sprint(rec.Reading.Count), Seqs: []int{f.Seq, final.Seq},
			})
		}
	case final.Status == rec.InFlight:
		vs = append(vs, check.Violation{
			What: "the key stayed in flight after the failed attempt: the operation cannot complete", Expected: "the stored failure, or a fresh execution",
			Observed: answerOf(final), Seqs: []int{final.Seq},
		})
	default:
		vs = append(vs, check.Violation{
			What: "the retry after the failed attempt got neither the stored failure nor a fresh execution", Expected: fmt.Sprintf("%d replayed, or 2xx", f.Status),
			Observed: answerOf(final), Seqs: []int{final.Seq},
		})
	}
	// Once settled, the outcome stays: another success with the same id
	// (its exact bytes are K4's business), or the same stored failure.
	if again := rec.Again; (mode == "retried" && !again.Is2xx()) || (mode == "replayed" && again.Status != f.Status) {
		vs = append(vs, check.Violation{
			What: "a second retry got another answer than the first", Expected: answerOf(final),
			Observed: answerOf(again), Seqs: []int{final.Seq, again.Seq},
		})
	}
	if mode != "retried" && rec.Reading.Count > 1 {
		vs = append(vs, check.Violation{
			What:     fmt.Sprintf("the oracle (%s) counts %d resources for one key", rec.Reading.Oracle, rec.Reading.Count),
			Expected: "at most 1", Observed: fmt.Sprint(rec.Reading.Count),
		})
	}
	return check.Judge("K6", vs...), []string{failureNote(mode, f.Status, rec.Convention)}
}

func failureNote(mode string, status int, convention string) string {
	var note string
	switch mode {
	case "replayed":
		note = fmt.Sprintf("the target stored the failed attempt's %d and replays it to retries (as Stripe does)", status)
	case "retried":
		note = fmt.Sprintf("the target kept no record of the failed attempt (%d) and executed the retry afresh (as Brandur Leach's design and Powertools do)", status)
	default:
		return fmt.Sprintf("after the failed attempt (%d) the target neither replayed it nor executed afresh", status)
	}
	if convention != "" && convention != mode {
		note += fmt.Sprintf("; the profile's convention is %q (either is acceptable)", convention)
	}
	return note
}
