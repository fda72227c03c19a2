package check

import (
	"fmt"
	"time"

	"github.com/idemspec/idemspec/harness/retry/state"
)

// Client mode turns the harness around: the server is idemspec's
// reference, the client is the one under test. These checks judge a
// client from the server's request log, the client's exit code and the
// result it printed. The clause is the draft's §2 for the client's half
// ("a client ... MUST reuse the key for a retry of the same request"),
// and core for the rest of a retrying client's duties.

// C1: draft §2: a retry of the same request carries the same key.
var C1 = Register(Check{
	ID: "C1", Group: "client", Level: MUST, Clause: "draft-ietf-httpapi-idempotency-key-header §2 (a retry carries the same key)",
	Title: "should send the same idempotency key on every attempt after a lost response",
})

// C2: the server fingerprints the payload; a retry that differs is
// another request (422), so a retry resends the same bytes.
var C2 = Register(Check{
	ID: "C2", Group: "client", Level: MUST, Clause: "draft-ietf-httpapi-idempotency-key-header §2 (a retry is the same request)",
	Title: "should send the same payload on every attempt",
})

// C3: core: a retrying client's attempts are bounded in number and time.
var C3 = Register(Check{
	ID: "C3", Group: "client", Level: MUST, Clause: "core (bounded retries)",
	Title: "should make at most its attempt budget under a persistent failure and exit within its deadline",
})

// C4: core: a timeout proves only that the answer did not arrive.
var C4 = Register(Check{
	ID: "C4", Group: "client", Level: MUST, Clause: "core (a timeout is an unknown outcome, not a failure)",
	Title: "should report SUCCEEDED or UNKNOWN_RESULT, never FAILED, after timeouts where the server did commit",
})

// C5: core: reconciliation before a resubmission.
var C5 = Register(Check{
	ID: "C5", Group: "client", Level: MUST, Clause: "core (reconcile an unknown outcome before resubmitting)",
	Title: "should look the operation up before it resubmits after an unknown outcome",
})

// C6: core: the key outlives the process.
var C6 = Register(Check{
	ID: "C6", Group: "client", Level: MUST, Clause: "core (the key is persisted before the first send)",
	Title: "should not create a second resource when killed mid-operation and started again with the same state",
})

// C7: draft §2.7: 400 and 422 are final for that request.
var C7 = Register(Check{
	ID: "C7", Group: "client", Level: MUST, Clause: "draft-ietf-httpapi-idempotency-key-header §2.7 (400 and 422 are final)",
	Title: "should not retry a create the server refused with a final 4xx (400, 422)",
})

// ServerRequest is one request in the reference server's log.
type ServerRequest struct {
	Seq    int       `json:"seq"`
	Kind   string    `json:"kind"` // "create" or "lookup"
	Key    string    `json:"key"`
	Hash   string    `json:"payload_sha256,omitempty"`
	Status int       `json:"status"`
	At     time.Time `json:"at"`
	// Lost: the harness made sure the client never got this answer.
	Lost bool `json:"lost,omitempty"`
}

// ClientExit is how one run of the client command ended.
type ClientExit struct {
	Code       int           `json:"exit_code"`
	Killed     string        `json:"killed,omitempty"` // why idemspec killed it, if it did
	State      string        `json:"state,omitempty"`  // from the last stdout line: a contract end state (harness/retry/state)
	ResourceID string        `json:"resource_id,omitempty"`
	Problem    string        `json:"problem,omitempty"` // why the last line was not a result
	Elapsed    time.Duration `json:"elapsed_ns"`
}

// ClientTrial is what one client check observed.
type ClientTrial struct {
	Requests []ServerRequest
	Exits    []ClientExit
	Budget   int
	Deadline time.Duration
	// Slack is the start-up and scheduling time allowed past the deadline.
	Slack time.Duration
	// Resources is the oracle's count for the trial's marker at the end.
	Resources int
}

func (t ClientTrial) creates() []ServerRequest {
	var out []ServerRequest
	for _, r := range t.Requests {
		if r.Kind == "create" {
			out = append(out, r)
		}
	}
	return out
}

func seqs(rs ...ServerRequest) []int {
	out := make([]int, 0, len(rs))
	for _, r := range rs {
		out = append(out, r.Seq)
	}
	return out
}

// needCreates is the violation of a trial in which the client never
// reached the server: nothing else can be judged, and a client that
// sends nothing is not conforming either.
func needCreates(t ClientTrial) []Violation {
	if len(t.creates()) > 0 {
		return nil
	}
	return []Violation{{What: "the client sent no create request", Expected: "at least one", Observed: "none"}}
}

// SameKey judges C1: every create of the operation carries the first's key.
func SameKey(t ClientTrial) Verdict {
	if vs := needCreates(t); vs != nil {
		return Judge(C1.ID, vs...)
	}
	cs := t.creates()
	var vs []Violation
	for _, c := range cs[1:] {
		if c.Key != cs[0].Key {
			vs = append(vs, Violation{What: "a retry carried another key", Expected: cs[0].Key, Observed: c.Key, Seqs: seqs(cs[0], c)})
		}
	}
	return Judge(C1.ID, vs...)
}

// SamePayload judges C2: every create carries the first's payload bytes.
func SamePayload(t ClientTrial) Verdict {
	if vs := needCreates(t); vs != nil {
		return Judge(C2.ID, vs...)
	}
	cs := t.creates()
	var vs []Violation
	for _, c := range cs[1:] {
		if c.Hash != cs[0].Hash {
			vs = append(vs, Violation{What: "a retry carried another payload", Expected: "sha256 " + cs[0].Hash, Observed: "sha256 " + c.Hash, Seqs: seqs(cs[0], c)})
		}
	}
	return Judge(C2.ID, vs...)
}

// Bounded judges C3: at most Budget creates, and an exit of its own
// within the deadline (plus slack).
func Bounded(t ClientTrial) Verdict {
	vs := needCreates(t)
	if n := len(t.creates()); n > t.Budget {
		vs = append(vs, Violation{What: "more attempts than the budget", Expected: fmt.Sprintf("at most %d", t.Budget), Observed: fmt.Sprint(n), Seqs: seqs(t.creates()...)})
	}
	for _, x := range t.Exits {
		switch {
		case x.Killed != "":
			vs = append(vs, Violation{What: "the client did not exit by itself", Expected: fmt.Sprintf("exit within %v", t.Deadline), Observed: "killed: " + x.Killed})
		case x.Elapsed > t.Deadline+t.Slack:
			vs = append(vs, Violation{What: "the client exited late", Expected: fmt.Sprintf("within %v (+%v slack)", t.Deadline, t.Slack), Observed: x.Elapsed.Round(time.Millisecond).String()})
		}
	}
	return Judge(C3.ID, vs...)
}

// NotFailedAfterCommit judges C4: the server committed (Resources > 0),
// so a client that says FAILED is wrong, and one that printed no result
// said nothing a caller could use.
func NotFailedAfterCommit(t ClientTrial) Verdict {
	if vs := needCreates(t); vs != nil {
		return Judge(C4.ID, vs...)
	}
	if t.Resources == 0 {
		return Errored(C4.ID, fmt.Errorf("the server never committed the create, so C4 cannot be judged"))
	}
	var vs []Violation
	for _, x := range t.Exits {
		switch state.State(x.State) {
		case state.Succeeded, state.UnknownResult:
		case state.Failed:
			vs = append(vs, Violation{What: "the client reported a committed create as failed", Expected: "SUCCEEDED or UNKNOWN_RESULT", Observed: "FAILED"})
		default:
			vs = append(vs, Violation{What: "the client printed no result", Expected: "SUCCEEDED or UNKNOWN_RESULT", Observed: orNone(x.Problem + x.Killed)})
		}
	}
	return Judge(C4.ID, vs...)
}

// ReconcileFirst judges C5: after a create whose answer was lost, a
// look-up arrives before the next create.
func ReconcileFirst(t ClientTrial) Verdict {
	if vs := needCreates(t); vs != nil {
		return Judge(C5.ID, vs...)
	}
	var vs []Violation
	var lost *ServerRequest
	looked := false
	for i := range t.Requests {
		r := t.Requests[i]
		switch {
		case r.Kind == "lookup":
			looked = true
		case lost != nil && !looked:
			vs = append(vs, Violation{What: "resubmitted after an unknown outcome without looking the operation up", Expected: "a look-up between the two creates", Observed: "none", Seqs: seqs(*lost, r)})
		}
		if r.Kind == "create" {
			lost, looked = nil, false
			if r.Lost {
				lost = &t.Requests[i]
			}
		}
	}
	return Judge(C5.ID, vs...)
}

// OneResourceAfterRestart judges C6: after the kill and the restart, the
// oracle counts one resource for the operation.
func OneResourceAfterRestart(t ClientTrial) Verdict {
	if vs := needCreates(t); vs != nil {
		return Judge(C6.ID, vs...)
	}
	if t.Resources != 1 {
		return Judge(C6.ID, Violation{What: "resources for the operation after a kill and a restart", Expected: "1", Observed: fmt.Sprint(t.Resources), Seqs: seqs(t.creates()...)})
	}
	return Judge(C6.ID)
}

// NoRetryOfRefusal judges C7: no create follows one answered 400 or 422.
func NoRetryOfRefusal(t ClientTrial) Verdict {
	if vs := needCreates(t); vs != nil {
		return Judge(C7.ID, vs...)
	}
	cs := t.creates()
	for i, c := range cs {
		if (c.Status == 400 || c.Status == 422) && i+1 < len(cs) {
			return Judge(C7.ID, Violation{What: fmt.Sprintf("retried a create refused with %d", c.Status), Expected: "no further create", Observed: fmt.Sprintf("%d more", len(cs)-i-1), Seqs: seqs(cs[i:]...)})
		}
	}
	return Judge(C7.ID)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
