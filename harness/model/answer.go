package model

import (
	"fmt"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
)

// Answer is one attempt with a pool key, as the client saw it.
type Answer struct {
	Key     string
	Payload string
	X       history.Exchange
	// Settled is set when the client waited out "in flight" answers
	// before this one, so an in-flight status here means the key is
	// stuck. Unsettled answers (a burst's, one the client will resend)
	// may meet another request with the key in flight.
	Settled bool
	// Triggered is set when the request carried the target's fail
	// trigger: a 5xx then means the attempt failed before taking effect.
	Triggered bool
}

// answered is what a replay must repeat of the first success.
type answered struct{ x history.Exchange }

// Answer judges one attempt and narrows the worlds to those it allows.
func (m *Model) Answer(a Answer) []Finding {
	k, x, c := m.key(a.Key), a.X, m.conv
	switch x.Outcome {
	case history.Failed:
		return nil // it never reached the server
	case history.MaybeApplied:
		k.sent, k.lastLost = true, a.Payload
		if k.free {
			// Either it took effect and bound the key, or it did not.
			k.bound[a.Payload] = true
		}
		return nil
	}
	k.sent = true
	s := x.Status
	retryLater := x.Headers["Retry-After"] != ""
	// An in-flight status without Retry-After, for a payload the key may
	// be bound away from, may as well be a mismatch refused with the
	// in-flight status (409 for both is common): it narrows nothing.
	ambiguous := s == c.InFlight && (s == c.Mismatch || (!retryLater && k.others(a.Payload)))
	if k.durable && a.Settled && !x.Is2xx() && (retryLater || (s == c.InFlight && !ambiguous)) {
		return []Finding{must(k.violation(x.Seq, "answered in flight after the target restarted, though its answer came before: the key's record did not survive the restart",
			"the original answer, replayed", fmt.Sprint(s)))}
	}
	switch {
	case x.Is2xx() && x.ResourceID != "" && m.owner(k, x.ResourceID) != "":
		return []Finding{must(k.violation(x.Seq, "a success carried another key's resource",
			"a resource of its own (or a refusal)", fmt.Sprintf("%d %s, the resource of %s", s, x.ResourceID, m.owner(k, x.ResourceID))))}
	case x.Is2xx():
		return k.succeeded(a, c)
	case k.refusable && !k.exists && s >= 400 && s < 500:
		return nil // refused: nothing created
	case a.Triggered && s >= 500:
		// Failed before taking effect: the target stored the failure
		// for the key, or released it for a fresh retry. A key found
		// held (a mismatch refused, a look-up) where no resource showed
		// may have been held by a claim a restart abandoned: if this
		// attempt carries that claim's payload, it may have taken the
		// claim over and failed, and the key may be free again. (A
		// retry with another payload meets the claim as a mismatch.)
		if !k.free && !k.exists && k.abandoned[a.Payload] {
			k.free = true
			clear(k.abandoned)
		}
		if k.free {
			k.failed[a.Payload] = s
		}
		return nil
	case ambiguous:
		// In flight, or bound to another payload. Only the first is left
		// if nothing else can hold the key.
		if a.Settled && !k.others(a.Payload) {
			return k.stuck(x)
		}
		return nil
	case s == c.Mismatch:
		return k.rejected(a)
	case a.Settled && s >= 400 && s < 500 && !retryLater && k.others(a.Payload):
		// A refusal, with another status than the profile's: the MUST
		// (refused, nothing executed) holds; the status is a SHOULD.
		fs := k.rejected(a)
		return append(fs, should(k.violation(x.Seq, "a reused key with another payload was refused with another status than the profile's",
			fmt.Sprint(c.Mismatch), fmt.Sprint(s))))
	case s == c.InFlight:
		if a.Settled {
			return k.stuck(x)
		}
		return nil
	case k.failed[a.Payload] == s:
		// The stored failure of an earlier attempt, replayed: the key
		// holds it for certain now.
		k.free = false
		k.bound, k.failed = map[string]bool{}, map[string]int{a.Payload: s}
		return nil
	case !a.Settled:
		return []Finding{should(k.violation(x.Seq, "a duplicate of a request in flight was refused with another status than the profile's",
			fmt.Sprintf("%d (or a success, or %d for another payload)", c.InFlight, c.Mismatch), fmt.Sprint(s)))}
	}
	return []Finding{must(k.violation(x.Seq, "an answer the profile does not allow", m.Expect(a.Key, a.Payload), fmt.Sprint(s)))}
}

func (k *key) stuck(x history.Exchange) []Finding {
	return []Finding{must(k.violation(x.Seq, "still in flight after the in-progress timeout",
		"an answer once the request in flight finishes or is abandoned", fmt.Sprint(x.Status)))}
}

func (k *key) succeeded(a Answer, c Convention) []Finding {
	x, p := a.X, a.Payload
	if !k.free && !k.bound[p] {
		if status := k.failed[p]; status != 0 {
			return []Finding{must(k.violation(x.Seq, "the key executed again after it stored a failure",
				fmt.Sprintf("%d, the stored failure", status), fmt.Sprintf("%d %s", x.Status, x.ResourceID)))}
		}
		return []Finding{must(k.violation(x.Seq, "a reused key with another payload was accepted",
			fmt.Sprintf("%d, nothing created (%s is bound to payload %s)", c.Mismatch, k.name, k.othersList(p)),
			fmt.Sprintf("%d %s", x.Status, x.ResourceID)))}
	}
	if x.ResourceID == "" {
		return []Finding{must(k.violation(x.Seq, "a success carried no resource id", "an id", fmt.Sprint(x.Status)))}
	}
	if k.id != "" && x.ResourceID != k.id {
		return []Finding{must(k.violation(x.Seq, "a success carried another resource id than the key's",
			k.id+" ("+k.idFrom+")", x.ResourceID))}
	}
	k.free, k.exists = false, true
	k.bound, k.failed = map[string]bool{p: true}, map[string]int{}
	if k.id == "" {
		k.id, k.idFrom = x.ResourceID, fmt.Sprintf("acknowledged in #%d", x.Seq)
	}
	if k.original == nil {
		k.original = &answered{x: x}
		return nil
	}
	if how := replayDiffers(k.original.x, x, c.Volatile); how != "" {
		v := k.violation(x.Seq, "a replay differs from the original answer", fmt.Sprintf("what #%d answered", k.original.x.Seq), how)
		v.Seqs = []int{k.original.x.Seq, x.Seq}
		return []Finding{should(v)}
	}
	return nil
}

// replayDiffers says how a replay differs from the original answer in
// status, body (but for volatile fields), Content-Type or Location; ""
// when it does not.
func replayDiffers(original, replay history.Exchange, volatile []string) string {
	if same, how := check.SameAnswer(original, replay, volatile); !same {
		return how
	}
	for _, h := range []string{"Content-Type", "Location"} {
		if original.Headers[h] != replay.Headers[h] {
			return fmt.Sprintf("%s %q vs %q", h, original.Headers[h], replay.Headers[h])
		}
	}
	return ""
}

func (k *key) rejected(a Answer) []Finding {
	if !k.others(a.Payload) {
		return []Finding{must(k.violation(a.X.Seq, "rejected as a mismatch, but the key can only be bound to this payload",
			"2xx", fmt.Sprint(a.X.Status)))}
	}
	// The key is bound, and not to this payload.
	k.free = false
	delete(k.bound, a.Payload)
	delete(k.failed, a.Payload)
	return nil
}
