package scenarios

import (
	"fmt"
	"strings"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
)

// What the judges share: each helper returns the violations it finds in
// a slice of exchanges, so a judge reads as a list of requirements. The
// judges are pure functions of a recorded history and the oracle's
// readings: they never send, sleep or read a clock, and they are tested
// on hand-made histories.

// unanswered lists the exchanges that got no HTTP answer on a lane that
// had no fault (the target dropped the request, hung up, or answered
// after --request-timeout).
func unanswered(xs []history.Exchange) []history.Exchange {
	var out []history.Exchange
	for _, x := range xs {
		if x.Outcome != history.OK {
			out = append(out, x)
		}
	}
	return out
}

// judged is a judge's verdict from the violations it found and the
// exchanges that got no answer. A request that got no answer may or may
// not have been applied, and breaks no clause by itself: the judges
// accept both worlds for it, and the oracle's count and the other answers
// still judge the effects. So the violations found are the verdict,
// FAIL or WARN at the check's level. With none, a missing answer is
// ERROR, not PASS: the check could not see all it judges (and a target
// that answers after --request-timeout, on a slow machine, is not
// charged with breaking the clause).
func judged(id string, vs []check.Violation, missing []history.Exchange) check.Verdict {
	if len(vs) > 0 || len(missing) == 0 {
		return check.Judge(id, vs...)
	}
	return check.Errored(id, noAnswer(missing))
}

// noAnswer says which exchanges got no answer, and how.
func noAnswer(missing []history.Exchange) error {
	steps := make([]string, len(missing))
	for i, x := range missing {
		steps[i] = x.Step
	}
	x := missing[0]
	return fmt.Errorf("%s got no answer (%s: %s), so the check could not see all it judges: a request without an answer may or may not have been applied; a target slower than --request-timeout needs a longer one",
		listed(steps), x.Outcome, x.Error)
}

// sameID reports 2xx answers that carry no id, or more than one id.
// It returns the one id when there is exactly one.
func sameID(xs []history.Exchange) (string, []check.Violation) {
	var out []check.Violation
	ids := map[string][]int{}
	var order []string
	for _, x := range xs {
		if !x.Is2xx() {
			continue
		}
		if x.ResourceID == "" {
			out = append(out, check.Violation{
				What: fmt.Sprintf("%s: a 2xx answer carried no resource id", x.Step), Seqs: []int{x.Seq},
			})
			continue
		}
		if _, seen := ids[x.ResourceID]; !seen {
			order = append(order, x.ResourceID)
		}
		ids[x.ResourceID] = append(ids[x.ResourceID], x.Seq)
	}
	if len(order) > 1 {
		var seqs []int
		for _, id := range order {
			seqs = append(seqs, ids[id]...)
		}
		out = append(out, check.Violation{
			What:     "successful answers for one key carried different resource ids",
			Expected: "one id",
			Observed: listed(order),
			Seqs:     seqs,
		})
	}
	if len(order) == 1 {
		return order[0], out
	}
	return "", out
}

// countsOne reports an oracle count other than one, and an oracle that
// lists a resource other than the id the answers carried.
func countsOne(r check.Reading, id string) []check.Violation {
	if r.Count != 1 {
		return []check.Violation{{
			What:     fmt.Sprintf("the oracle (%s) counts %d resources for one key", r.Oracle, r.Count),
			Expected: "1",
			Observed: fmt.Sprint(r.Count),
		}}
	}
	if id != "" && r.IDs != nil && (len(r.IDs) != 1 || r.IDs[0] != id) {
		return []check.Violation{{
			What:     "the answers name a resource the oracle does not list",
			Expected: id,
			Observed: listed(r.IDs),
		}}
	}
	return nil
}

// countsOneOrNone is countsOne where some answers are missing: when no
// answer named a resource, none may have been made (each request without
// an answer may not have been applied), so a count of 0 is no violation.
func countsOneOrNone(r check.Reading, id string, missing []history.Exchange) []check.Violation {
	if len(missing) > 0 && id == "" && r.Count == 0 {
		return nil
	}
	return countsOne(r, id)
}

// unreached returns an error when no request reached the target at all:
// that is the harness failing to run the check, not the target failing it.
func unreached(xs []history.Exchange) error {
	for _, x := range xs {
		if x.Outcome != history.Failed {
			return nil
		}
	}
	if len(xs) == 0 {
		return fmt.Errorf("no request was sent")
	}
	return fmt.Errorf("the target could not be reached: %s", xs[0].Error)
}

// listed shows up to three items and how many more there are.
func listed(items []string) string {
	if len(items) <= 3 {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:3], ", "), len(items)-3)
}

// is4xx reports a client-error status: the server refused the request.
func is4xx(status int) bool { return status >= 400 && status < 500 }

// answerOf shows an answer briefly: "201 id r1", "422".
func answerOf(x history.Exchange) string {
	if x.Outcome != history.OK {
		return string(x.Outcome)
	}
	if x.ResourceID != "" {
		return fmt.Sprintf("%d id %s", x.Status, x.ResourceID)
	}
	return fmt.Sprint(x.Status)
}

func quoted(s string) string {
	if s == "" {
		return "none"
	}
	return fmt.Sprintf("%q", s)
}
