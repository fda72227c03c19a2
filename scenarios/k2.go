package scenarios

import (
	"context"
	"fmt"
	"net/http"
	"strings"

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
var K2 = define(Check{
	ID: "K2", Group: "keys", Level: check.MUST, Clause: "core; draft-ietf-httpapi-idempotency-key-header §5",
	Title: "should answer malformed keys without a server error or a dropped connection",
	Plan:  fixed(7),
	Run:   oddKeysSurvived,
})

// K2: malformed keys get no 5xx and no dropped connection.
func oddKeysSurvived(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error) {
	run, err := oddKeyRun(ctx, e, h, ev, "K2")
	if err != nil {
		return check.Verdict{}, err
	}
	return OddKeysSurvived(run), nil
}

// oddKeyRun sends one create per malformed key.
func oddKeyRun(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence, scope string) (OddKeyRun, error) {
	marker := e.NewMarker(scope)
	body, err := e.Body(marker, "100")
	if err != nil {
		return OddKeyRun{}, err
	}
	header := http.CanonicalHeaderKey(e.Target.Key.Header)
	var run OddKeyRun
	for _, c := range malformedKeys(e) {
		x := e.Send(ctx, h, harness.Attempt{
			Step: "key: " + c.name, Lane: e.Clean, Key: c.values[0], Body: body, Variant: "100",
			Header: http.Header{header: c.values},
		})
		run.Keys = append(run.Keys, OddKey{Case: c.name, Send: x, InFormat: c.inFormat(e)})
	}
	run.Reading, err = reading(ctx, e, ev, marker, "after the malformed keys")
	return run, err
}

// malformedKey is a key header that is not a well-formed key: its values
// (two for a duplicated header).
type malformedKey struct {
	name   string
	values []string
}

// inFormat says whether the target's declared format accepts the key
// after all, so that accepting it is no fault.
func (k malformedKey) inFormat(e *harness.Env) bool {
	return len(k.values) == 1 && e.Target.Key.Matches(k.values[0])
}

// malformedKeys are the malformed keys K2, K2a and the property send,
// each made from fresh keys. Leading and trailing whitespace is not among
// them: HTTP strips it, so the target would see a well-formed key.
func malformedKeys(e *harness.Env) []malformedKey {
	good := e.NewKey()
	long := strings.Repeat(good, 1+1024/len(good))
	return []malformedKey{
		{"empty", []string{""}},
		{"256 characters", []string{long[:256]}},
		{"1024 characters", []string{long[:1024]}},
		{"non-ASCII", []string{good[:len(good)-1] + "é"}},
		{"inner whitespace", []string{good[:len(good)/2] + " " + good[len(good)/2+1:]}},
		{"duplicated header", []string{e.NewKey(), e.NewKey()}},
	}
}

// OddKey is one create sent with a malformed key.
type OddKey struct {
	Case string // what is odd about it: "empty", "256 characters", ...
	Send history.Exchange
	// InFormat is set when the target's declared format accepts the key
	// after all: accepting it is then no fault.
	InFormat bool
}

// OddKeyRun is what K2 and K2a observed: one create per malformed key,
// all carrying one marker, and the oracle's count for it.
type OddKeyRun struct {
	Keys    []OddKey
	Reading check.Reading
}

// OddKeysSurvived judges K2: no malformed key got a 5xx or a dropped
// connection, and no refused request created anything.
func OddKeysSurvived(run OddKeyRun) check.Verdict {
	xs := make([]history.Exchange, len(run.Keys))
	for i, k := range run.Keys {
		xs[i] = k.Send
	}
	if err := unreached(xs); err != nil {
		return check.Errored("K2", err)
	}
	var vs []check.Violation
	accepted := map[string]bool{}
	for _, k := range run.Keys {
		x := k.Send
		switch {
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
	if len(vs) == 0 && run.Reading.Count > len(accepted) {
		vs = append(vs, check.Violation{
			What:     fmt.Sprintf("refused keys created resources: the oracle (%s) counts %d, the answers accepted %d", run.Reading.Oracle, run.Reading.Count, len(accepted)),
			Expected: fmt.Sprint(len(accepted)), Observed: fmt.Sprint(run.Reading.Count),
		})
	}
	return check.Judge("K2", vs...)
}
