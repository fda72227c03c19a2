package check

import (
	"fmt"

	"github.com/idemspec/idemspec/harness/history"
)

// The key checks, K1 to K6: the draft's rules around the key itself
// (missing, malformed), what counts as "the same request", what a replay
// must carry, how in-flight duplicates are answered, and what follows a
// failed first attempt. Clauses are quoted from
// draft-ietf-httpapi-idempotency-key-header (text of the working group's
// repository, github.com/ietf-wg-httpapi/idempotency); section numbers as
// in the drafts since -02.

// K1: §2.7: "Error scenarios above describe the status of failed
// idempotent requests after the resource server prcocesses them. Clients
// MUST correct the requests (with the exception of 409 where no
// correction is required) before performing a retry operation, or the the
// resource server MUST fail the request and return one of the above
// errors." A create without a required key must fail: no 2xx, nothing
// created.
var K1 = Register(Check{
	ID: "K1", Group: "keys", Level: MUST, Clause: "draft-ietf-httpapi-idempotency-key-header §2.7",
	Title: "should refuse a create without the required key and create nothing",
})

// K1a: §2.7: "If the Idempotency-Key request header is missing for a
// documented idempotent operation requiring this header, the resource
// server SHOULD reply with an HTTP 400 status code with body containing a
// link pointing to relevant documentation." (The profile names the code.)
var K1a = Register(Check{
	ID: "K1a", Group: "keys", Level: SHOULD, Clause: "draft-ietf-httpapi-idempotency-key-header §2.7",
	Title: "should answer a create without the required key with the profile's missing-key status",
})

// K2: §5: "Injection attacks-When the resource server does not validate
// the idempotency key in the client request and performs a idempotent
// cache lookup, there can be security attacks (primarily in the form of
// injection), compromising the server." A malformed key is the client's
// error: answering it with a 5xx, or dropping the connection, is the
// server failing on input it must survive.
var K2 = Register(Check{
	ID: "K2", Group: "keys", Level: MUST, Clause: "core; draft-ietf-httpapi-idempotency-key-header §5",
	Title: "should answer malformed keys without a server error or a dropped connection",
})

// K2a: §2.1: "Idempotency-Key is an Item Structured Header [RFC8941].
// Its value MUST be a String." and "Clients MUST NOT include more than
// one Idempotency-Key header field in the same request."; §5 recommends:
// "Establish a fixed format for the idempotency key and publish the key's
// specification." and "Always validate the key as per its published
// specification before processing any request."
var K2a = Register(Check{
	ID: "K2a", Group: "keys", Level: SHOULD, Clause: "draft-ietf-httpapi-idempotency-key-header §2.1, §5",
	Title: "should refuse keys outside the declared format and duplicated key headers with a 4xx",
})

// K3: §2.2: "The idempotency key that is supplied as part of every POST
// request MUST be unique and MUST NOT be reused with another request with
// a different request payload."; §2.4: "An idempotency fingerprint MAY be
// used in conjunction with an idempotency key to determine the uniqueness
// of a request. Such a fingerprint is generated from request payload data
// by the resource server." So a changed body field must be refused, while
// reordered JSON members, other whitespace, another query parameter or
// another header MAY count as the same request; whichever way, one key
// never executes twice.
var K3 = Register(Check{
	ID: "K3", Group: "keys", Level: MUST, Clause: "draft-ietf-httpapi-idempotency-key-header §2.2, §2.4",
	Title: "should treat each variation of a request as the same request or refuse it, never execute it again",
})

// K4: §2.6: "Retry: The request was retried after the original request
// completed. The resource server SHOULD respond with the result of the
// previously completed operation, success or an error."
var K4 = Register(Check{
	ID: "K4", Group: "keys", Level: SHOULD, Clause: "draft-ietf-httpapi-idempotency-key-header §2.6",
	Title: "should replay the original status, body, content type and Location",
})

// K5: §2.6: "Concurrent Request: The request was retried before the
// original request completed. The resource server SHOULD respond with a
// resource conflict error."; §2.7: "If the request is retried, while the
// original request is still being processed, the resource server SHOULD
// reply with an HTTP 409 status code with body containing problem
// description." A Retry-After, when given, must parse (RFC 9110 §10.2.3:
// "Retry-After = HTTP-date / delay-seconds").
var K5 = Register(Check{
	ID: "K5", Group: "keys", Level: SHOULD, Clause: "draft-ietf-httpapi-idempotency-key-header §2.6, §2.7; RFC 9110 §10.2.3",
	Title: "should answer duplicates of a request still in flight with the profile's in-flight status",
})

// K6: §2.6: the retry gets "the result of the previously completed
// operation, success or an error"; §2.7: "For other 4xx/5xx errors, such
// as 401, 403, 500, 502, 503, 504, 429, or any other HTTP error code that
// is not listed here, the client SHOULD act appropriately by following
// the resource server's documentation." Whether a failed attempt is
// stored and replayed or retried afresh is the server's choice (reported);
// either way one key never executes twice, and an answer that says
// "failed" is not left standing over a resource that exists.
var K6 = Register(Check{
	ID: "K6", Group: "keys", Level: MUST, Clause: "core; draft-ietf-httpapi-idempotency-key-header §2.6, §2.7",
	Title: "should execute at most once when retries follow a first attempt that failed with a 5xx",
})

// MissingKeyRun is what K1 and K1a observed: one create without the key.
type MissingKeyRun struct {
	Send    history.Exchange
	Reading Reading
	Want    int // the profile's missing-key status
}

// MissingKeyRefused judges K1: the keyless create failed and created
// nothing.
func MissingKeyRefused(run MissingKeyRun) Verdict {
	xs := []history.Exchange{run.Send}
	if err := unreached(xs); err != nil {
		return Errored(K1.ID, err)
	}
	vs := unanswered(xs)
	if run.Send.Is2xx() {
		vs = append(vs, Violation{
			What: "a create without the required key was accepted", Expected: "a 4xx",
			Observed: fmt.Sprint(run.Send.Status), Seqs: []int{run.Send.Seq},
		})
	}
	if run.Reading.Count != 0 {
		vs = append(vs, Violation{
			What:     fmt.Sprintf("the oracle (%s) counts %d resources created without the key", run.Reading.Oracle, run.Reading.Count),
			Expected: "0", Observed: fmt.Sprint(run.Reading.Count),
		})
	}
	return Judge(K1.ID, vs...)
}

// MissingKeyStatus judges K1a: a refusal carries the profile's status.
// An accepted keyless create is K1's failure, not judged again here.
func MissingKeyStatus(run MissingKeyRun) Verdict {
	x := run.Send
	if err := unreached([]history.Exchange{x}); err != nil {
		return Errored(K1a.ID, err)
	}
	if x.Outcome != history.OK || x.Is2xx() || x.Status == run.Want {
		return Judge(K1a.ID)
	}
	return Judge(K1a.ID, Violation{
		What:     "a create without the required key was refused with another status than the profile's",
		Expected: fmt.Sprint(run.Want), Observed: fmt.Sprint(x.Status), Seqs: []int{x.Seq},
	})
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
	Reading Reading
}

// OddKeysSurvived judges K2: no malformed key got a 5xx or a dropped
// connection, and no refused request created anything.
func OddKeysSurvived(run OddKeyRun) Verdict {
	xs := make([]history.Exchange, len(run.Keys))
	for i, k := range run.Keys {
		xs[i] = k.Send
	}
	if err := unreached(xs); err != nil {
		return Errored(K2.ID, err)
	}
	var vs []Violation
	accepted := map[string]bool{}
	for _, k := range run.Keys {
		x := k.Send
		switch {
		case x.Outcome != history.OK:
			vs = append(vs, Violation{
				What: fmt.Sprintf("a key (%s) got no answer", k.Case), Expected: "an HTTP response",
				Observed: fmt.Sprintf("%s: %s", x.Outcome, x.Error), Seqs: []int{x.Seq},
			})
		case x.Status >= 500:
			vs = append(vs, Violation{
				What: fmt.Sprintf("a key (%s) was answered with a server error", k.Case), Expected: "a 4xx (or acceptance)",
				Observed: fmt.Sprint(x.Status), Seqs: []int{x.Seq},
			})
		case x.Is2xx():
			accepted[x.ResourceID] = true
		}
	}
	if len(vs) == 0 && run.Reading.Count > len(accepted) {
		vs = append(vs, Violation{
			What:     fmt.Sprintf("refused keys created resources: the oracle (%s) counts %d, the answers accepted %d", run.Reading.Oracle, run.Reading.Count, len(accepted)),
			Expected: fmt.Sprint(len(accepted)), Observed: fmt.Sprint(run.Reading.Count),
		})
	}
	return Judge(K2.ID, vs...)
}

// OddKeysRefused judges K2a: every key outside the declared format was
// refused with a 4xx. Server errors and silence are K2's failures.
func OddKeysRefused(run OddKeyRun) Verdict {
	xs := make([]history.Exchange, len(run.Keys))
	for i, k := range run.Keys {
		xs[i] = k.Send
	}
	if err := unreached(xs); err != nil {
		return Errored(K2a.ID, err)
	}
	var vs []Violation
	for _, k := range run.Keys {
		x := k.Send
		if k.InFormat || x.Outcome != history.OK || x.Status >= 400 {
			continue
		}
		vs = append(vs, Violation{
			What: fmt.Sprintf("a key (%s) was accepted", k.Case), Expected: "a 4xx",
			Observed: fmt.Sprint(x.Status), Seqs: []int{x.Seq},
		})
	}
	return Judge(K2a.ID, vs...)
}
