package check

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/idemspec/idemspec/harness/history"
)

// InFlightRun is what K5 observed: same-key bursts (each its own key),
// so that duplicates arrive while the first request is still being
// processed.
type InFlightRun struct {
	Bursts   []history.Burst
	Sends    []history.Exchange // every burst's, in order
	InFlight int                // the profile's in-flight status
}

// InFlightConflict judges K5: every duplicate the target refused carries
// the profile's in-flight status, and a Retry-After, when given, parses.
// Duplicates that were serialized and replayed are acceptable and only
// counted; a second execution is S4's failure, not judged here.
func InFlightConflict(run InFlightRun) (Verdict, []string) {
	if err := unreached(run.Sends); err != nil {
		return Errored(K5.ID, err), nil
	}
	var vs []Violation
	var success, conflict, silent int
	retryAfter := map[string]int{}
	refused := map[int][]int{} // status -> seqs, for refusals with another status
	var badRetryAfter []int
	for _, x := range run.Sends {
		switch {
		case x.Outcome != history.OK:
			silent++
		case x.Is2xx():
			success++
		case x.Status != run.InFlight:
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
		vs = append(vs, Violation{
			What:     fmt.Sprintf("%d duplicates of a request in flight were refused with another status than the profile's", len(seqs)),
			Expected: fmt.Sprint(run.InFlight), Observed: fmt.Sprint(status), Seqs: seqs,
		})
	}
	if len(badRetryAfter) > 0 {
		vs = append(vs, Violation{
			What:     fmt.Sprintf("%d in-flight answers carry a Retry-After that does not parse", len(badRetryAfter)),
			Expected: "delay-seconds or an HTTP-date", Observed: tally(retryAfter), Seqs: badRetryAfter,
		})
	}
	if silent == len(run.Sends) {
		// Nothing answered: there is no in-flight answer to judge, and a
		// PASS would claim one was right.
		return Errored(K5.ID, fmt.Errorf("none of the %d same-key requests was answered (%s): there is no in-flight answer to judge", len(run.Sends), run.Sends[0].Error)), nil
	}
	note := fmt.Sprintf("of %d same-key requests in %d bursts: %d succeeded (duplicates serialized and replayed are acceptable; a second execution is S4's failure), %d answered %d in flight",
		len(run.Sends), len(run.Bursts), success, conflict, run.InFlight)
	if conflict > 0 {
		note += " (Retry-After: " + tally(retryAfter) + ")"
	}
	if silent > 0 {
		note += fmt.Sprintf(", %d got no answer (judged by S4)", silent)
	}
	return Judge(K5.ID, vs...), []string{note}
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

// tally shows how often each value occurred: "1 ×12", none for "".
func tally(counts map[string]int) string {
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
