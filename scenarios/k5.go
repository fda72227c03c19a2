package scenarios

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
)

// K5: §2.6: "Concurrent Request: The request was retried before the
// original request completed. The resource server SHOULD respond with a
// resource conflict error."; §2.7: "If the request is retried, while the
// original request is still being processed, the resource server SHOULD
// reply with an HTTP 409 status code with body containing problem
// description." A Retry-After, when given, must parse (RFC 9110 §10.2.3:
// "Retry-After = HTTP-date / delay-seconds").
var K5 = check.Define(Check{
	ID: "K5", Group: "keys", Level: check.SHOULD, Clause: "draft-ietf-httpapi-idempotency-key-header §2.6, §2.7; RFC 9110 §10.2.3",
	Title:    "should answer duplicates of a request still in flight with the profile's in-flight status",
	Why:      "A duplicate that arrives while the first request still runs needs an answer the client can act on (wait, then retry), not a success or a failure it would believe.",
	Fix:      "Keep an in-progress marker on the key while the request runs and answer duplicates with the profile's in-flight status (409 in the IETF draft), with a valid Retry-After if you send one.",
	Stimulus: "Sends duplicates while the first request of the key is held in flight.",
	Proof:    "The status of the duplicates answered while the first was in flight, and any Retry-After.",
	Plan: func(p Planning) check.Plan {
		return check.Plan{Requests: p.Burst, MaxRequests: maxInFlightBursts * p.Burst, MaxMarkers: maxInFlightBursts}
	},
	Run: serverRun(inFlightConflict),
})

// maxInFlightBursts bounds K5's bursts. A burst whose duplicates all
// arrive after the first request finished shows nothing about in-flight
// answers (a serializing target looks the same), so K5 bursts again, a
// few times at most, until some duplicate is refused.
const maxInFlightBursts = 3

// K5: duplicates that meet the first request in flight.
func inFlightConflict(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error) {
	rec := InFlightRecord{InFlight: e.Target.Profile.InFlight}
	for i := 1; i <= maxInFlightBursts; i++ {
		key, marker := e.NewKey(), e.NewMarker("K5")
		body, err := e.Body(marker, "100")
		if err != nil {
			return check.Verdict{}, err
		}
		b, sends, err := e.Burst(ctx, h, harness.BurstSpec{Step: fmt.Sprintf("burst %d", i), Lane: e.Clean, Key: key, Body: body, Variant: "100", Size: e.Settings.BurstSize})
		if err != nil {
			return check.Verdict{}, err
		}
		ev.Bursts = append(ev.Bursts, b)
		rec.Bursts = append(rec.Bursts, b)
		rec.Sends = append(rec.Sends, sends...)
		if slices.ContainsFunc(sends, func(x history.Exchange) bool { return judgedRefusal(x, rec.InFlight) }) {
			break
		}
	}
	v, notes := InFlightConflict(rec)
	ev.Notes = append(ev.Notes, notes...)
	return v, nil
}

// InFlightRecord is what K5 observed: same-key bursts (each its own key),
// so that duplicates arrive while the first request is still being
// processed.
type InFlightRecord struct {
	Bursts   []history.Burst
	Sends    []history.Exchange // every burst's, in order
	InFlight int                // the profile's in-flight status
}

// judgedRefusal says whether x is a refusal K5 judges: an answer that is
// no success, unless idemspec held its body so long that a server's read
// timeout may have cut it (Stalled) and it is not the in-flight status.
func judgedRefusal(x history.Exchange, inFlight int) bool {
	return x.Outcome == history.OK && !x.Is2xx() && (!x.Stalled || x.Status == inFlight)
}

// InFlightConflict judges K5: every duplicate the target refused carries
// the profile's in-flight status, and a Retry-After, when given, parses.
// Duplicates that were serialized and replayed are acceptable and only
// counted; a second execution is S4's failure, not judged here. A
// refusal of a request whose body idemspec held too long (Stalled) may
// be the server's read timeout cutting the body, idemspec's doing: it is
// counted, not judged.
func InFlightConflict(rec InFlightRecord) (check.Verdict, []string) {
	if err := unreached(rec.Sends); err != nil {
		return check.Errored("K5", err), nil
	}
	var vs []check.Violation
	var success, conflict, silent, stalled int
	retryAfter := map[string]int{}
	refused := map[int][]int{} // status -> seqs, for refusals with another status
	var badRetryAfter []int
	for _, x := range rec.Sends {
		switch {
		case x.Outcome != history.OK:
			silent++
		case x.Is2xx():
			success++
		case !judgedRefusal(x, rec.InFlight):
			stalled++
		case x.Status != rec.InFlight:
			refused[x.Status] = append(refused[x.Status], x.Seq)
		default:
			conflict++
			ra, given := x.Headers["Retry-After"]
			retryAfter[ra]++
			if given && !validRetryAfter(ra) {
				badRetryAfter = append(badRetryAfter, x.Seq)
			}
		}
	}
	for _, status := range slices.Sorted(maps.Keys(refused)) {
		seqs := refused[status]
		vs = append(vs, check.Violation{
			What:     fmt.Sprintf("%d duplicates of a request in flight were refused with another status than the profile's", len(seqs)),
			Expected: fmt.Sprint(rec.InFlight), Observed: fmt.Sprint(status), Seqs: seqs,
		})
	}
	if len(badRetryAfter) > 0 {
		vs = append(vs, check.Violation{
			What:     fmt.Sprintf("%d in-flight answers carry a Retry-After that does not parse", len(badRetryAfter)),
			Expected: "delay-seconds or an HTTP-date", Observed: tallyStatuses(retryAfter), Seqs: badRetryAfter,
		})
	}
	if silent == len(rec.Sends) {
		// Nothing answered: there is no in-flight answer to judge, and a
		// PASS would claim one was right.
		return check.Errored("K5", fmt.Errorf("none of the %d same-key requests was answered (%s): there is no in-flight answer to judge", len(rec.Sends), rec.Sends[0].Error)), nil
	}
	if conflict == 0 && len(refused) == 0 {
		// No duplicate was refused: a PASS would claim an in-flight
		// answer was right that never came.
		if again := executedAgain(rec.Sends); again != "" {
			return check.Skip("K5", "S4 fails here: "+again+", so no in-flight answer came to judge"), nil
		}
		why := "the answered ones were served one after another (acceptable)"
		if silent > 0 {
			why += fmt.Sprintf("; %d got no answer (S4's to judge)", silent)
		}
		if stalled > 0 {
			why += fmt.Sprintf("; %s", stalledRefusals(stalled))
		}
		return check.Skip("K5", fmt.Sprintf("no duplicate of the %d same-key requests in %d bursts was refused: %s, so no in-flight answer came to judge", len(rec.Sends), len(rec.Bursts), why)), nil
	}
	note := fmt.Sprintf("of %d same-key requests in %d bursts: %d succeeded (duplicates serialized and replayed are acceptable; a second execution is S4's failure), %d answered %d in flight",
		len(rec.Sends), len(rec.Bursts), success, conflict, rec.InFlight)
	if conflict > 0 {
		note += " (Retry-After: " + tallyStatuses(retryAfter) + ")"
	}
	if silent > 0 {
		note += fmt.Sprintf(", %d got no answer (judged by S4)", silent)
	}
	if stalled > 0 {
		note += ", " + stalledRefusals(stalled)
	}
	return check.Judge("K5", vs...), []string{note}
}

// stalledRefusals says why refusals of stalled requests were not judged.
func stalledRefusals(n int) string {
	return fmt.Sprintf("%d refused after idemspec held their bodies past %s on a busy machine (a server's read timeout may have cut them: not judged)", n, harness.StallAfter)
}

// executedAgain says how same-key requests executed more than once (2xx
// answers naming different resources for one key), "" when none did.
func executedAgain(sends []history.Exchange) string {
	ids := map[string]map[string]bool{}
	var keys []string
	for _, x := range sends {
		if !x.Is2xx() || x.ResourceID == "" {
			continue
		}
		if ids[x.Key] == nil {
			ids[x.Key] = map[string]bool{}
			keys = append(keys, x.Key)
		}
		ids[x.Key][x.ResourceID] = true
	}
	for _, k := range keys {
		if n := len(ids[k]); n > 1 {
			return fmt.Sprintf("one key's duplicates were executed again (%d resource ids)", n)
		}
	}
	return ""
}

// validRetryAfter parses RFC 9110's Retry-After: delay-seconds (digits)
// or an HTTP-date.
func validRetryAfter(v string) bool {
	if v == "" {
		return false
	}
	if strings.Trim(v, "0123456789") == "" {
		return true
	}
	_, err := http.ParseTime(v)
	return err == nil
}

// tallyStatuses shows how often each value occurred: "1 ×12", none for "".
func tallyStatuses(counts map[string]int) string {
	var parts []string
	for _, v := range slices.Sorted(maps.Keys(counts)) {
		shown := v
		if v == "" {
			shown = "none"
		}
		parts = append(parts, fmt.Sprintf("%s ×%d", shown, counts[v]))
	}
	return strings.Join(parts, ", ")
}
