package model_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/harness/model"
)

var (
	ietf    = model.Convention{Mismatch: 422, InFlight: 409, MissingKey: 400, Volatile: []string{"created_at"}}
	brandur = model.Convention{Mismatch: 409, InFlight: 409, MissingKey: 400}
)

// Hand-made histories: each helper is one event of a recorded run.
var seq int

func exchange(outcome history.Outcome, status int, id string) history.Exchange {
	seq++
	x := history.Exchange{Seq: seq, Outcome: outcome, Status: status, ResourceID: id}
	if id != "" {
		x.Body = `{"id":"` + id + `"}`
		x.Headers = map[string]string{"Content-Type": "application/json", "Location": "/resources/" + id}
	}
	return x
}

// twin declares k1@t2 as k1's twin (another tenant, one marker).
var twin = model.Event{Twin: &model.Twin{Of: "k1", Name: "k1@t2"}}

func answer(key, payload string, status int, id string) model.Event {
	return model.Event{Answer: &model.Answer{Key: key, Payload: payload, X: exchange(history.OK, status, id), Settled: true}}
}

// inBurst is an answer the client will not wait out: it may meet another
// request in flight.
func inBurst(key, payload string, status int, id string) model.Event {
	e := answer(key, payload, status, id)
	e.Answer.Settled = false
	return e
}

func failing(key, payload string, status int) model.Event {
	e := answer(key, payload, status, "")
	e.Answer.Triggered = true
	return e
}

func lost(key, payload string) model.Event {
	return model.Event{Answer: &model.Answer{Key: key, Payload: payload, X: exchange(history.MaybeApplied, 0, "")}}
}

func unsent(key, payload string) model.Event {
	return model.Event{Answer: &model.Answer{Key: key, Payload: payload, X: exchange(history.Failed, 0, "")}}
}

func lookup(key string, status int) model.Event {
	return model.Event{Lookup: &model.Lookup{Key: key, X: exchange(history.OK, status, "")}}
}

func keyless(status int, id string) model.Event {
	x := exchange(history.OK, status, id)
	return model.Event{Keyless: &x}
}

// keylessLost is a create without the key that got no answer.
func keylessLost() model.Event {
	x := exchange(history.MaybeApplied, 0, "")
	return model.Event{Keyless: &x}
}

// oddKey is a create with a malformed key; two key headers are a MAY,
// as harness.MalformedKeys makes them.
func oddKey(c string, inFormat bool, status int, id string) model.Event {
	o := model.OddKey{Case: c, InFormat: inFormat, X: exchange(history.OK, status, id)}
	if c == "duplicated header" {
		o.May = "either way (a MAY)"
	}
	return model.Event{OddKey: &o}
}

// oddKeyLost is a create with a malformed key that got no answer: the
// client gave up waiting (timedOut), or the connection was dropped.
func oddKeyLost(c string, timedOut bool) model.Event {
	x := exchange(history.MaybeApplied, 0, "")
	x.TimedOut, x.Error = timedOut, "EOF"
	if timedOut {
		x.Error = "context deadline exceeded"
	}
	return model.Event{OddKey: &model.OddKey{Case: c, X: x}}
}

// oddKeyReused is a create with a malformed key dropped on a reused
// keep-alive connection: the server may have closed it as idle while the
// request was on its way.
func oddKeyReused(c string) model.Event {
	x := exchange(history.MaybeApplied, 0, "")
	x.Reused, x.Error = true, "read: connection reset by peer"
	return model.Event{OddKey: &model.OddKey{Case: c, X: x}}
}

func variation(key, kind string, status int, id string) model.Event {
	return model.Event{Variation: &model.Variation{Key: key, Kind: kind, X: exchange(history.OK, status, id)}}
}

func oracle(key string, ids ...string) model.Event {
	return model.Event{Oracle: &model.Reading{Key: key, Count: len(ids), IDs: ids}}
}

func final(key string, ids ...string) model.Event {
	return model.Event{Final: &model.Reading{Key: key, Count: len(ids), IDs: ids}}
}

func TestCheck(t *testing.T) {
	cases := []struct {
		name   string
		conv   model.Convention
		events []model.Event
		want   []string // "LEVEL What" of each finding, in order; none for a correct run
	}{
		{name: "the same request replays the first resource",
			events: []model.Event{answer("k1", "100", 201, "r1"), oracle("k1", "r1"), answer("k1", "100", 201, "r1"), oracle("k1", "r1"), final("k1", "r1")}},
		{name: "another payload is rejected and creates nothing",
			events: []model.Event{answer("k1", "100", 201, "r1"), answer("k1", "200", 422, ""), oracle("k1", "r1"), answer("k1", "100", 201, "r1"), final("k1", "r1")}},
		{name: "a burst: one success, the others in flight or replays",
			events: []model.Event{inBurst("k1", "100", 409, ""), inBurst("k1", "100", 201, "r1"), inBurst("k1", "100", 409, ""), inBurst("k1", "100", 201, "r1"), oracle("k1", "r1")}},
		{name: "keys are independent",
			events: []model.Event{answer("k1", "100", 201, "r1"), answer("k2", "100", 201, "r2"), oracle("k1", "r1"), oracle("k2", "r2"), final("k1", "r1"), final("k2", "r2")}},
		{name: "maybe applied, and it was: the retry replays",
			events: []model.Event{lost("k1", "100"), oracle("k1", "r1"), answer("k1", "100", 201, "r1"), final("k1", "r1")}},
		{name: "maybe applied, and it was not: the retry creates",
			events: []model.Event{lost("k1", "100"), oracle("k1"), answer("k1", "100", 201, "r1"), oracle("k1", "r1")}},
		{name: "maybe applied, world one: another payload finds the key free",
			events: []model.Event{lost("k1", "100"), answer("k1", "200", 201, "r1"), oracle("k1", "r1"), answer("k1", "100", 422, "")}},
		{name: "maybe applied, world two: another payload finds the key bound",
			events: []model.Event{lost("k1", "100"), answer("k1", "200", 422, ""), answer("k1", "100", 201, "r1"), final("k1", "r1")}},
		{name: "maybe applied and never settled: either count is right",
			events: []model.Event{lost("k1", "100"), lost("k2", "100"), final("k1"), final("k2", "r2")}},
		{name: "a lost attempt on a bound key changes nothing",
			events: []model.Event{answer("k1", "100", 201, "r1"), lost("k1", "200"), oracle("k1", "r1"), answer("k1", "200", 422, ""), answer("k1", "100", 201, "r1")}},
		{name: "a request that never left changes nothing",
			events: []model.Event{unsent("k1", "100"), oracle("k1"), final("k1"), lookup("k1", 404)}},
		{name: "a key in flight may be found before its resource shows",
			events: []model.Event{lost("k1", "100"), lookup("k1", 200), oracle("k1"), inBurst("k1", "100", 409, ""), answer("k1", "100", 201, "r1"), final("k1", "r1")}},
		{name: "a mismatch answered while the first is in flight settles the key as found",
			events: []model.Event{lost("k1", "100"), answer("k1", "200", 422, ""), oracle("k1"), final("k1", "r1")}},
		{name: "a failure stored and replayed: nothing exists, another payload is refused",
			events: []model.Event{failing("k1", "100", 503), oracle("k1"), answer("k1", "100", 503, ""), answer("k1", "200", 422, ""), oracle("k1"), final("k1")}},
		{name: "a failure not kept: the retry executes once",
			events: []model.Event{failing("k1", "100", 503), oracle("k1"), answer("k1", "100", 201, "r1"), oracle("k1", "r1"), final("k1", "r1")}},
		{name: "a failure not kept: another payload may take the key",
			events: []model.Event{failing("k1", "100", 503), answer("k1", "200", 201, "r1"), oracle("k1", "r1")}},
		{name: "the fail trigger on a bound key is a replay",
			events: []model.Event{answer("k1", "100", 201, "r1"), func() model.Event {
				e := answer("k1", "100", 201, "r1")
				e.Answer.Triggered = true
				return e
			}(), oracle("k1", "r1")}},
		{name: "brandur: one status for a mismatch and for in flight",
			conv:   brandur,
			events: []model.Event{answer("k1", "100", 201, "r1"), answer("k1", "200", 409, ""), inBurst("k1", "100", 409, ""), oracle("k1", "r1"), final("k1", "r1")}},
		{name: "brandur: the ambiguous status after a lost attempt",
			conv:   brandur,
			events: []model.Event{lost("k1", "100"), answer("k1", "200", 409, ""), answer("k1", "100", 201, "r1"), final("k1", "r1")}},
		{name: "a create without the key is refused; malformed keys refused or accepted in format",
			events: []model.Event{keyless(400, ""), oracle(model.NoKey), oddKey("empty", false, 400, ""), oddKey("duplicated header", false, 400, ""),
				oddKey("256 characters", true, 201, "r7"), oracle(model.OddKeys, "r7")}},
		{name: "a variation is replayed or refused",
			events: []model.Event{answer("k1", "100", 201, "r1"), variation("k1", "an added query parameter", 201, "r1"), variation("k1", "reordered JSON", 422, ""), oracle("k1", "r1")}},

		{name: "another tenant's twin gets its own resource",
			events: []model.Event{twin, answer("k1", "100", 201, "r1"), answer("k1@t2", "100", 201, "r2"), oracle("k1", "r1"), oracle("k1@t2", "r2"), final("k1", "r1"), final("k1@t2", "r2")}},
		{name: "a view shared by the tenants lists both resources under one marker: each is attributed by its answers",
			events: []model.Event{twin, answer("k1", "100", 201, "r1"), answer("k1@t2", "100", 201, "r2"),
				oracle("k1", "r1", "r2"), oracle("k1@t2", "r1", "r2"), final("k1", "r1", "r2"), final("k1@t2", "r1", "r2")}},
		{name: "a shared view after a lost answer: the twin's acknowledged resource is not the key's",
			events: []model.Event{twin, lost("k1", "100"), answer("k1@t2", "100", 201, "r2"),
				oracle("k1", "r1", "r2"), oracle("k1@t2", "r1", "r2"), final("k1", "r1", "r2")}},
		// The key's answer was lost and its request still ran when the
		// twin's reading landed: the unnamed resource may be the key's.
		{name: "a shared view before the key's resource is named: an unnamed resource may be the key's",
			events: []model.Event{twin, lost("k1", "100"), answer("k1@t2", "100", 201, "r2"),
				oracle("k1@t2", "r2", "r1"), oracle("k1", "r2", "r1"), final("k1@t2", "r1", "r2")}},
		{name: "a shared view before the key's resource is named still shows the twin's own duplicate",
			events: []model.Event{twin, lost("k1", "100"), answer("k1@t2", "100", 201, "r2"), oracle("k1@t2", "r2", "r1", "r3")},
			want:   []string{"MUST k1@t2: more than one resource"}},
		{name: "a shared view when the key was never sent: every other resource counts",
			events: []model.Event{twin, answer("k1@t2", "100", 201, "r2"), oracle("k1@t2", "r2", "r1")},
			want:   []string{"MUST k1@t2: more than one resource"}},
		{name: "a shared view still shows a key's own duplicate",
			events: []model.Event{twin, answer("k1", "100", 201, "r1"), answer("k1@t2", "100", 201, "r2"), oracle("k1", "r1", "r3", "r2")},
			want:   []string{"MUST k1: more than one resource"}},
		{name: "global keys behind a shared view: the twin still gets the first tenant's resource",
			events: []model.Event{twin, answer("k1", "100", 201, "r1"), answer("k1@t2", "100", 201, "r1"), oracle("k1", "r1")},
			want:   []string{"MUST k1@t2: a success carried another key's resource"}},
		{name: "record-after-answer: in flight after a restart that followed the answer",
			events: []model.Event{answer("k1", "100", 201, "r1"), {Restart: true}, answer("k1", "100", 409, "")},
			want:   []string{"MUST k1: answered in flight after the target restarted, though its answer came before: the key's record did not survive the restart"}},
		{name: "the answer replayed after a restart",
			events: []model.Event{answer("k1", "100", 201, "r1"), {Restart: true}, answer("k1", "100", 201, "r1"), final("k1", "r1")}},
		{name: "a key sent only after the restart may be in flight in a burst",
			events: []model.Event{{Restart: true}, inBurst("k1", "100", 409, ""), inBurst("k1", "100", 201, "r1"), final("k1", "r1")}},
		{name: "a key whose answer was lost before the restart is not held to it",
			events: []model.Event{lost("k1", "100"), {Restart: true}, inBurst("k1", "100", 409, ""), answer("k1", "100", 201, "r1"), final("k1", "r1")}},
		{name: "a mismatch refused with the in-flight status, after a restart",
			events: []model.Event{answer("k1", "100", 201, "r1"), {Restart: true}, answer("k1", "200", 409, ""), answer("k1", "100", 201, "r1"), final("k1", "r1")}},
		// A crash abandons the claim of a request that had not taken
		// effect; another payload is refused while the claim holds the
		// key; a retry takes the expired claim over and is made to fail,
		// and the target releases the key (as with any failure it does
		// not keep): the other payload may take it now.
		{name: "a take-over of a claim the crash abandoned, made to fail, frees the key for another payload",
			events: []model.Event{lost("k1", "100"), {Restart: true}, answer("k1", "200", 422, ""), failing("k1", "100", 503),
				answer("k1", "200", 201, "r1"), oracle("k1", "r1"), answer("k1", "100", 422, ""), final("k1", "r1")}},
		{name: "a take-over of a claim the crash abandoned, made to fail, after a look-up found the key",
			events: []model.Event{lost("k1", "100"), {Restart: true}, lookup("k1", 200), failing("k1", "100", 503),
				answer("k1", "200", 201, "r1"), final("k1", "r1")}},
		{name: "brandur: the ambiguous status for another payload after a restart",
			conv:   brandur,
			events: []model.Event{answer("k1", "100", 201, "r1"), {Restart: true}, answer("k1", "200", 409, ""), final("k1", "r1")}},
		{name: "mismatch-417: another payload refused with another 4xx",
			events: []model.Event{answer("k1", "100", 201, "r1"), answer("k1", "200", 417, ""), oracle("k1", "r1"), answer("k1", "100", 201, "r1"), final("k1", "r1")},
			want:   []string{"SHOULD k1: a reused key with another payload was refused with another status than the profile's"}},
		{name: "replay-200-reduced: the replay names the resource with another status and body",
			events: []model.Event{answer("k1", "100", 201, "r1"), func() model.Event {
				e := answer("k1", "100", 200, "r1")
				e.Answer.X.Body = `{"id":"r1"}`
				return e
			}(), oracle("k1", "r1"), final("k1", "r1")},
			want: []string{"SHOULD k1: a replay differs from the original answer"}},
		{name: "another tenant's twin may be refused outright",
			events: []model.Event{twin, answer("k1", "100", 201, "r1"), answer("k1@t2", "100", 403, ""), oracle("k1@t2"), final("k1@t2")}},
		{name: "global keys: the twin gets the first tenant's resource",
			events: []model.Event{twin, answer("k1", "100", 201, "r1"), answer("k1@t2", "100", 201, "r1")},
			want:   []string{"MUST k1@t2: a success carried another key's resource"}},
		// A view that lists every tenant's resources is no defect of
		// idempotency: the resource is k1's, whoever reads it.
		{name: "a shared view lists the first tenant's resource to a refused second tenant",
			events: []model.Event{twin, answer("k1", "100", 201, "r1"), answer("k1@t2", "100", 403, ""), oracle("k1@t2", "r1"), final("k1@t2", "r1")}},
		{name: "a twin refused, yet a resource nobody acknowledged appears in its view",
			events: []model.Event{twin, answer("k1", "100", 201, "r1"), answer("k1@t2", "100", 403, ""), oracle("k1@t2", "r7")},
			want:   []string{"MUST k1@t2: a resource exists though no request with the key can have taken effect"}},
		{name: "a refusal is not fine for a pool key",
			events: []model.Event{answer("k1", "100", 403, "")},
			want:   []string{"MUST k1: an answer the profile does not allow"}},
		{name: "two keys answered with one resource",
			events: []model.Event{answer("k1", "100", 201, "r1"), answer("k2", "100", 201, "r1")},
			want:   []string{"MUST k2: a success carried another key's resource"}},
		{name: "nodedup: a repeat creates a second resource",
			events: []model.Event{answer("k1", "100", 201, "r1"), answer("k1", "100", 201, "r2"), oracle("k1", "r1", "r2")},
			want:   []string{"MUST k1: a success carried another resource id than the key's", "MUST k1: more than one resource"}},
		{name: "check-then-insert: a burst runs twice",
			events: []model.Event{inBurst("k1", "100", 201, "r1"), inBurst("k1", "100", 201, "r2"), oracle("k1", "r1", "r2")},
			want:   []string{"MUST k1: a success carried another resource id than the key's", "MUST k1: more than one resource"}},
		{name: "ignore-payload: another payload replays the first answer",
			events: []model.Event{answer("k1", "100", 201, "r1"), answer("k1", "200", 201, "r1")},
			want:   []string{"MUST k1: a reused key with another payload was accepted"}},
		// Without a restart nothing abandons the lost attempt's claim: it
		// takes effect, and the failure made on purpose frees nothing.
		{name: "a lost attempt's claim no restart abandoned: a payload refused, then accepted",
			events: []model.Event{lost("k1", "100"), answer("k1", "200", 422, ""), failing("k1", "100", 503), answer("k1", "200", 201, "r1")},
			want:   []string{"MUST k1: a reused key with another payload was accepted"}},
		{name: "a claim abandoned by a restart frees the key only to its own payload's take-over",
			events: []model.Event{lost("k1", "100"), {Restart: true}, answer("k1", "200", 422, ""), failing("k1", "200", 503), answer("k1", "200", 201, "r1")},
			want:   []string{"MUST k1: a reused key with another payload was accepted"}},
		{name: "maybe applied, and the oracle shows it was: another payload must be rejected",
			events: []model.Event{lost("k1", "100"), oracle("k1", "r1"), answer("k1", "200", 201, "r1")},
			want:   []string{"MUST k1: a reused key with another payload was accepted"}},
		{name: "commit-before-fail: the failed attempt left a resource",
			events: []model.Event{failing("k1", "100", 503), oracle("k1", "r1")},
			want:   []string{"MUST k1: a resource exists though no request with the key can have taken effect"}},
		{name: "a stored failure followed by an execution",
			events: []model.Event{failing("k1", "100", 503), answer("k1", "100", 503, ""), answer("k1", "100", 201, "r1")},
			want:   []string{"MUST k1: the key executed again after it stored a failure"}},
		{name: "replay-drops-location: a replay without the original's Location",
			events: []model.Event{answer("k1", "100", 201, "r1"), func() model.Event {
				e := answer("k1", "100", 201, "r1")
				delete(e.Answer.X.Headers, "Location")
				return e
			}()},
			want: []string{"SHOULD k1: a replay differs from the original answer"}},
		{name: "a replay whose body differs only in a volatile field",
			events: []model.Event{answer("k1", "100", 201, "r1"), func() model.Event {
				e := answer("k1", "100", 201, "r1")
				e.Answer.X.Body = `{"id":"r1","created_at":"later"}`
				return e
			}()}},
		{name: "in-flight-429: a duplicate in flight refused with another status",
			events: []model.Event{inBurst("k1", "100", 201, "r1"), inBurst("k1", "100", 429, "")},
			want:   []string{"SHOULD k1: a duplicate of a request in flight was refused with another status than the profile's"}},
		{name: "the first use of a key rejected as a mismatch",
			events: []model.Event{answer("k1", "100", 422, "")},
			want:   []string{"MUST k1: rejected as a mismatch, but the key can only be bound to this payload"}},
		{name: "the key's own payload rejected after a lost attempt with it",
			events: []model.Event{lost("k1", "100"), answer("k1", "100", 422, "")},
			want:   []string{"MUST k1: rejected as a mismatch, but the key can only be bound to this payload"}},
		{name: "a key stuck in flight",
			events: []model.Event{lost("k1", "100"), answer("k1", "100", 409, "")},
			want:   []string{"MUST k1: still in flight after the in-progress timeout"}},
		{name: "brandur: the ambiguous status where only in flight is possible, after waiting",
			conv:   brandur,
			events: []model.Event{lost("k1", "100"), answer("k1", "100", 409, "")},
			want:   []string{"MUST k1: still in flight after the in-progress timeout"}},
		{name: "a status the profile does not allow",
			events: []model.Event{answer("k1", "100", 500, "")},
			want:   []string{"MUST k1: an answer the profile does not allow"}},
		{name: "a success without an id",
			events: []model.Event{answer("k1", "100", 201, "")},
			want:   []string{"MUST k1: a success carried no resource id"}},
		{name: "an acknowledged resource disappears",
			events: []model.Event{answer("k1", "100", 201, "r1"), oracle("k1")},
			want:   []string{"MUST k1: the acknowledged resource is gone"}},
		{name: "the oracle lists another resource than the acknowledged one",
			events: []model.Event{answer("k1", "100", 201, "r1"), oracle("k1", "r9")},
			want:   []string{"MUST k1: the oracle lists another resource than the key's"}},
		{name: "a resource no request can have created",
			events: []model.Event{unsent("k1", "100"), oracle("k1", "r1")},
			want:   []string{"MUST k1: a resource exists though no request with the key can have taken effect"}},
		{name: "the look-up forgets an acknowledged key",
			events: []model.Event{answer("k1", "100", 201, "r1"), lookup("k1", 404)},
			want:   []string{"MUST k1: the look-up does not know a key whose resource exists"}},
		{name: "the look-up knows a key never sent",
			events: []model.Event{lookup("k1", 200)},
			want:   []string{"MUST k1: the look-up knows a key that was never sent"}},
		{name: "the look-up answers something else",
			events: []model.Event{lookup("k1", 500)},
			want:   []string{"MUST k1: the look-up answered with an unexpected status"}},
		{name: "found by a mismatch, but nothing exists after reconciliation",
			events: []model.Event{lost("k1", "100"), answer("k1", "200", 422, ""), final("k1")},
			want:   []string{"MUST k1: after reconciliation the oracle's count differs from what was acknowledged or found"}},
		{name: "key-optional: a create without the key accepted",
			events: []model.Event{keyless(201, "r1"), oracle(model.NoKey, "r1")},
			want:   []string{"MUST no key: a create without the required key was accepted", "MUST no key: resources were created without the key"}},
		{name: "a create without the key got no answer, and made nothing",
			events: []model.Event{keylessLost(), oracle(model.NoKey)}},
		{name: "a create without the key got no answer, and made a resource",
			events: []model.Event{keylessLost(), oracle(model.NoKey, "r1")},
			want:   []string{"MUST no key: resources were created without the key"}},
		{name: "missing-key-422: refused with another status",
			events: []model.Event{keyless(422, ""), oracle(model.NoKey)},
			want:   []string{"SHOULD no key: a create without the required key was refused with another status than the profile's"}},
		{name: "uuid-only-500: a malformed key gets a server error",
			events: []model.Event{oddKey("non-ASCII", false, 500, "")},
			want:   []string{"MUST malformed key (non-ASCII): answered with a server error"}},
		{name: "two key headers accepted: a MAY, not charged",
			events: []model.Event{oddKey("duplicated header", false, 201, "r1"), oracle(model.OddKeys, "r1")}},
		{name: "any-key-format: a key outside the declared format accepted",
			events: []model.Event{oddKey("256 characters", false, 201, "r1"), oracle(model.OddKeys, "r1")},
			want:   []string{"SHOULD malformed key (256 characters): accepted"}},
		{name: "a refused malformed key created a resource",
			events: []model.Event{oddKey("empty", false, 400, ""), oracle(model.OddKeys, "r1")},
			want:   []string{"MUST malformed key: refused keys created resources"}},
		{name: "a malformed key's connection was dropped",
			events: []model.Event{oddKeyLost("non-ASCII", false), oracle(model.OddKeys)},
			want:   []string{"MUST malformed key (non-ASCII): got no answer: the connection was dropped"}},
		{name: "a malformed key dropped on a reused keep-alive connection, and it may have made one resource",
			events: []model.Event{oddKeyReused("empty"), oracle(model.OddKeys, "r1")}},
		{name: "a malformed key dropped on a reused keep-alive connection, and two resources were made",
			events: []model.Event{oddKeyReused("empty"), oddKey("non-ASCII", false, 400, ""), oracle(model.OddKeys, "r1", "r2")},
			want:   []string{"MUST malformed key: refused keys created resources"}},
		{name: "a malformed key's answer did not come in time, and nothing was made",
			events: []model.Event{oddKeyLost("non-ASCII", true), oracle(model.OddKeys)}},
		{name: "a malformed key's answer did not come in time, and it may have made one resource",
			events: []model.Event{oddKeyLost("non-ASCII", true), oracle(model.OddKeys, "r1")}},
		{name: "a malformed key's answer did not come in time, and two resources were made",
			events: []model.Event{oddKeyLost("non-ASCII", true), oddKey("empty", false, 400, ""), oracle(model.OddKeys, "r1", "r2")},
			want:   []string{"MUST malformed key: refused keys created resources"}},
		{name: "query-scoped-keys: a variation executes again",
			events: []model.Event{answer("k1", "100", 201, "r1"), variation("k1", "an added query parameter", 201, "r2"), oracle("k1", "r1", "r2")},
			want:   []string{"MUST k1: a variation of the request (an added query parameter) executed it again", "MUST k1: more than one resource"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			conv := c.conv
			if conv.Mismatch == 0 {
				conv = ietf
			}
			var got []string
			for _, f := range model.Check(conv, c.events) {
				got = append(got, string(f.Level)+" "+f.What)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("findings:\n got  %q\n want %q", got, c.want)
			}
		})
	}
}

func TestFindingsNameWhatWasExpectedAndSeen(t *testing.T) {
	fs := model.Check(ietf, []model.Event{answer("k1", "100", 201, "r1"), answer("k1", "200", 201, "r1")})
	if len(fs) != 1 {
		t.Fatalf("got %v", fs)
	}
	v := fs[0].Violation
	if v.Expected != "422, nothing created (k1 is bound to payload 100)" || v.Observed != "201 r1" || len(v.Seqs) != 1 {
		t.Errorf("got %+v", v)
	}
}

// The failure message rapid compares between runs is a finding's What:
// it must not carry ids, which differ from run to run.
func TestWhatCarriesNoIDs(t *testing.T) {
	runs := [][]model.Event{
		{answer("k1", "100", 201, "res_1"), answer("k1", "100", 201, "res_2"), oracle("k1", "res_1", "res_2")},
		{answer("k1", "100", 201, "res_1"), oracle("k1", "res_9"), oracle("k1")},
		{keyless(201, "res_3"), oddKey("empty", false, 201, "res_4"), answer("k2", "100", 201, "res_5"), variation("k2", "reordered JSON", 201, "res_6")},
	}
	for _, r := range runs {
		for _, f := range model.Check(ietf, r) {
			if strings.Contains(f.What, "res_") {
				t.Errorf("What %q names an id", f.What)
			}
		}
	}
}

func TestExpect(t *testing.T) {
	m := model.New(ietf)
	for _, c := range []struct {
		do   func()
		key  string
		pay  string
		want string
	}{
		{nil, "k1", "100", "2xx creating the key's one resource"},
		{func() { m.Answer(*lost("k1", "100").Answer) }, "k1", "200", "2xx, or 422, nothing created (if k1 is bound to payload 100)"},
		{func() { m.Answer(*answer("k1", "100", 201, "r1").Answer) }, "k1", "100", "2xx with id r1"},
		{nil, "k1", "200", "422, nothing created (if k1 is bound to payload 100)"},
		{func() { m.Answer(*failing("k2", "100", 503).Answer) }, "k2", "100", "2xx, or 503, the stored failure"},
	} {
		if c.do != nil {
			c.do()
		}
		if got := m.Expect(c.key, c.pay); got != c.want {
			t.Errorf("Expect(%s, %s) = %q, want %q", c.key, c.pay, got, c.want)
		}
	}
	if got := m.ExpectLookup("k1"); got != "2xx: the key is known" {
		t.Errorf("look-up of a bound key: %q", got)
	}
	if got := m.ExpectLookup("k3"); got != "404: the key was never sent" {
		t.Errorf("look-up of an unsent key: %q", got)
	}
	if !m.MayMismatch("k1", "200") || m.MayMismatch("k1", "100") || m.MayMismatch("k3", "100") {
		t.Error("MayMismatch: only another payload than the bound one may meet a mismatch")
	}
}

// A key found bound by a mismatch refused while its lost request ran
// must end with one resource: the reconciliation resends the payload that
// bound it (waiting the request out) until a reading or an answer shows
// the resource.
func TestUnseenListsKeysFoundBoundButNotShown(t *testing.T) {
	m := model.New(ietf)
	for _, e := range []model.Event{lost("k1", "100"), answer("k1", "200", 422, ""), lost("k2", "100"), answer("k3", "100", 201, "r3"), failing("k4", "100", 503)} {
		m.Answer(*e.Answer)
	}
	if got, want := m.Unseen(), []model.Pending{{Key: "k1", Payload: "100"}}; !slices.Equal(got, want) {
		t.Errorf("unseen %v, want %v", got, want)
	}
	m.Oracle("k1", 1, []string{"r1"})
	if got := m.Unseen(); len(got) != 0 {
		t.Errorf("unseen %v after the oracle listed k1's resource, want none", got)
	}
}

func TestUnsettledListsKeysALostAttemptLeftOpen(t *testing.T) {
	m := model.New(ietf)
	m.Answer(*lost("k2", "100").Answer)
	m.Answer(*lost("k2", "200").Answer)
	m.Answer(*answer("k1", "100", 201, "r1").Answer)
	m.Answer(*lost("k1", "200").Answer)
	m.Answer(*unsent("k3", "100").Answer)
	m.Answer(*failing("k4", "100", 503).Answer)
	got := m.Unsettled()
	want := []model.Pending{{Key: "k2", Payload: "200"}}
	if !slices.Equal(got, want) {
		t.Errorf("unsettled %v, want %v", got, want)
	}
	for key, n := range map[string]int{"k1": 1, "k2": -1, "k3": 0, "k4": 0} {
		if got := m.Settled(key); got != n {
			t.Errorf("Settled(%s) = %d, want %d", key, got, n)
		}
	}
}
