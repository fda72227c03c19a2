package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/idemspec/idemspec/harness/history"
)

// Helpers shared by the checkers: each returns the violations it finds in
// a slice of exchanges, so a checker reads as a list of requirements.

// unanswered reports exchanges that got no HTTP answer on a lane that had
// no fault: the target dropped or hung up on a request it should answer.
func unanswered(xs []history.Exchange) []Violation {
	var out []Violation
	for _, x := range xs {
		if x.Outcome != history.OK {
			out = append(out, Violation{
				What:     fmt.Sprintf("%s got no answer", x.Step),
				Expected: "an HTTP response",
				Observed: fmt.Sprintf("%s: %s", x.Outcome, x.Error),
				Seqs:     []int{x.Seq},
			})
		}
	}
	return out
}

// sameID reports 2xx answers that carry no id, or more than one id.
// It returns the one id when there is exactly one.
func sameID(xs []history.Exchange) (string, []Violation) {
	var out []Violation
	ids := map[string][]int{}
	var order []string
	for _, x := range xs {
		if !x.Is2xx() {
			continue
		}
		if x.ResourceID == "" {
			out = append(out, Violation{
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
		out = append(out, Violation{
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

// oneResource reports an oracle count other than one, and an oracle that
// lists a resource other than the id the answers carried.
func oneResource(r Reading, id string) []Violation {
	if r.Count != 1 {
		return []Violation{{
			What:     fmt.Sprintf("the oracle (%s) counts %d resources for one key", r.Oracle, r.Count),
			Expected: "1",
			Observed: fmt.Sprint(r.Count),
		}}
	}
	if id != "" && r.IDs != nil && (len(r.IDs) != 1 || r.IDs[0] != id) {
		return []Violation{{
			What:     "the answers name a resource the oracle does not list",
			Expected: id,
			Observed: listed(r.IDs),
		}}
	}
	return nil
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

// SameAnswer compares two answers by status and JSON body, ignoring the
// volatile top-level or dotted fields. It says how they differ.
func SameAnswer(a, b history.Exchange, volatile []string) (bool, string) {
	if a.Status != b.Status {
		return false, fmt.Sprintf("status %d vs %d", a.Status, b.Status)
	}
	if a.Body == b.Body {
		return true, ""
	}
	ja, erra := decodeExact(a.Body)
	jb, errb := decodeExact(b.Body)
	if erra != nil || errb != nil {
		return false, "bodies differ"
	}
	for _, f := range volatile {
		drop(ja, strings.Split(f, "."))
		drop(jb, strings.Split(f, "."))
	}
	ca, _ := json.Marshal(ja)
	cb, _ := json.Marshal(jb)
	if !bytes.Equal(ca, cb) {
		return false, fmt.Sprintf("bodies differ beyond the volatile fields %v", volatile)
	}
	return true, ""
}

// decodeExact decodes a JSON body keeping numbers as written: as float64,
// two distinct 64-bit ids (9007199254740993 and ...992) would compare equal.
func decodeExact(body string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return v, nil
}

func drop(v any, path []string) {
	m, ok := v.(map[string]any)
	if !ok || len(path) == 0 {
		return
	}
	if len(path) == 1 {
		delete(m, path[0])
		return
	}
	drop(m[path[0]], path[1:])
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
