package model_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/harness/model"
)

var ietf = model.Statuses{Mismatch: 422, InFlight: 409}

// Hand-made histories: each helper is one event of a recorded run.
var seq int

func answer(key, payload string, status int, id string) model.Event {
	seq++
	return model.Event{Answer: &model.Answer{Key: key, Payload: payload, Outcome: history.OK, Status: status, ID: id, Seq: seq}}
}

func settled(key, payload string, status int) model.Event {
	e := answer(key, payload, status, "")
	e.Answer.Settled = true
	return e
}

func lost(key, payload string) model.Event {
	seq++
	return model.Event{Answer: &model.Answer{Key: key, Payload: payload, Outcome: history.MaybeApplied, Seq: seq}}
}

func unsent(key, payload string) model.Event {
	seq++
	return model.Event{Answer: &model.Answer{Key: key, Payload: payload, Outcome: history.Failed, Seq: seq}}
}

func lookup(key string, status int) model.Event {
	seq++
	return model.Event{Lookup: &model.Lookup{Key: key, Outcome: history.OK, Status: status, Seq: seq}}
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
		events []model.Event
		want   []string // the What of each violation, in order; none for a correct run
	}{
		{name: "the same request replays the first resource",
			events: []model.Event{answer("k1", "100", 201, "r1"), oracle("k1", "r1"), answer("k1", "100", 201, "r1"), oracle("k1", "r1"), final("k1", "r1")}},
		{name: "another payload is rejected and creates nothing",
			events: []model.Event{answer("k1", "100", 201, "r1"), answer("k1", "200", 422, ""), oracle("k1", "r1"), answer("k1", "100", 200, "r1"), final("k1", "r1")}},
		{name: "a burst: one success, the others in flight or replays",
			events: []model.Event{answer("k1", "100", 409, ""), answer("k1", "100", 201, "r1"), answer("k1", "100", 409, ""), answer("k1", "100", 201, "r1"), oracle("k1", "r1")}},
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
			events: []model.Event{lost("k1", "100"), lookup("k1", 200), oracle("k1"), answer("k1", "100", 409, ""), answer("k1", "100", 201, "r1"), final("k1", "r1")}},
		{name: "a mismatch answered while the first is in flight settles the key as found",
			events: []model.Event{lost("k1", "100"), answer("k1", "200", 422, ""), oracle("k1"), final("k1", "r1")}},

		{name: "nodedup: a repeat creates a second resource",
			events: []model.Event{answer("k1", "100", 201, "r1"), answer("k1", "100", 201, "r2"), oracle("k1", "r1", "r2")},
			want:   []string{"k1: a success carried another resource id than the key's", "k1: more than one resource"}},
		{name: "check-then-insert: a burst runs twice",
			events: []model.Event{answer("k1", "100", 201, "r1"), answer("k1", "100", 201, "r2"), oracle("k1", "r1", "r2")},
			want:   []string{"k1: a success carried another resource id than the key's", "k1: more than one resource"}},
		{name: "ignore-payload: another payload replays the first answer",
			events: []model.Event{answer("k1", "100", 201, "r1"), answer("k1", "200", 201, "r1")},
			want:   []string{"k1: a reused key with another payload was accepted"}},
		{name: "maybe applied, and the oracle shows it was: another payload must be rejected",
			events: []model.Event{lost("k1", "100"), oracle("k1", "r1"), answer("k1", "200", 201, "r1")},
			want:   []string{"k1: a reused key with another payload was accepted"}},
		{name: "the first use of a key rejected as a mismatch",
			events: []model.Event{answer("k1", "100", 422, "")},
			want:   []string{"k1: rejected as a mismatch, but the key can only be bound to this payload"}},
		{name: "the key's own payload rejected after a lost attempt with it",
			events: []model.Event{lost("k1", "100"), answer("k1", "100", 422, "")},
			want:   []string{"k1: rejected as a mismatch, but the key can only be bound to this payload"}},
		{name: "a key stuck in flight",
			events: []model.Event{lost("k1", "100"), settled("k1", "100", 409)},
			want:   []string{"k1: still in flight after the in-progress timeout"}},
		{name: "a status the profile does not allow",
			events: []model.Event{answer("k1", "100", 500, "")},
			want:   []string{"k1: an answer the profile does not allow"}},
		{name: "a success without an id",
			events: []model.Event{answer("k1", "100", 201, "")},
			want:   []string{"k1: a success carried no resource id"}},
		{name: "an acknowledged resource disappears",
			events: []model.Event{answer("k1", "100", 201, "r1"), oracle("k1")},
			want:   []string{"k1: the acknowledged resource is gone"}},
		{name: "the oracle lists another resource than the acknowledged one",
			events: []model.Event{answer("k1", "100", 201, "r1"), oracle("k1", "r9")},
			want:   []string{"k1: the oracle lists another resource than the key's"}},
		{name: "a resource no request can have created",
			events: []model.Event{unsent("k1", "100"), oracle("k1", "r1")},
			want:   []string{"k1: a resource exists though no request with the key can have taken effect"}},
		{name: "the look-up forgets an acknowledged key",
			events: []model.Event{answer("k1", "100", 201, "r1"), lookup("k1", 404)},
			want:   []string{"k1: the look-up does not know a key whose resource exists"}},
		{name: "the look-up knows a key never sent",
			events: []model.Event{lookup("k1", 200)},
			want:   []string{"k1: the look-up knows a key that was never sent"}},
		{name: "the look-up answers something else",
			events: []model.Event{lookup("k1", 500)},
			want:   []string{"k1: the look-up answered with an unexpected status"}},
		{name: "found by a mismatch, but nothing exists after reconciliation",
			events: []model.Event{lost("k1", "100"), answer("k1", "200", 422, ""), final("k1")},
			want:   []string{"k1: after reconciliation the oracle's count differs from what was acknowledged or found"}},
		{name: "after reconciliation a key that cannot be bound has a resource",
			events: []model.Event{unsent("k1", "100"), final("k1", "r1")},
			want:   []string{"k1: a resource exists though no request with the key can have taken effect"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, v := range model.Check(ietf, c.events) {
				got = append(got, v.What)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("violations:\n got  %q\n want %q", got, c.want)
			}
		})
	}
}

func TestViolationsNameWhatWasExpectedAndSeen(t *testing.T) {
	vs := model.Check(ietf, []model.Event{answer("k1", "100", 201, "r1"), answer("k1", "200", 201, "r1")})
	if len(vs) != 1 {
		t.Fatalf("got %v", vs)
	}
	v := vs[0]
	if v.Expected != "422, nothing created (k1 is bound to payload 100)" || v.Observed != "201 r1" || len(v.Seqs) != 1 {
		t.Errorf("got %+v", v)
	}
}

// The failure message rapid compares between runs is a violation's What:
// it must not carry ids, which differ from run to run.
func TestWhatCarriesNoIDs(t *testing.T) {
	runs := [][]model.Event{
		{answer("k1", "100", 201, "res_1"), answer("k1", "100", 201, "res_2"), oracle("k1", "res_1", "res_2")},
		{answer("k1", "100", 201, "res_1"), oracle("k1", "res_9"), oracle("k1")},
	}
	for _, r := range runs {
		for _, v := range model.Check(ietf, r) {
			if strings.Contains(v.What, "res_") {
				t.Errorf("What %q names an id", v.What)
			}
		}
	}
}

func TestExpect(t *testing.T) {
	m := model.New(ietf)
	if got := m.Expect("k1", "100"); got != "2xx creating the key's one resource" {
		t.Errorf("fresh key: %q", got)
	}
	m.Answer(model.Answer{Key: "k1", Payload: "100", Outcome: history.MaybeApplied})
	if got := m.Expect("k1", "200"); got != "2xx, or 422 if a lost attempt bound the key to payload 100" {
		t.Errorf("after a lost attempt: %q", got)
	}
	m.Answer(model.Answer{Key: "k1", Payload: "100", Outcome: history.OK, Status: 201, ID: "r1", Seq: 2})
	if got := m.Expect("k1", "100"); got != "2xx with id r1" {
		t.Errorf("bound, same payload: %q", got)
	}
	if got := m.Expect("k1", "200"); got != "422, nothing created (k1 is bound to payload 100)" {
		t.Errorf("bound, other payload: %q", got)
	}
	if got := m.ExpectLookup("k1"); got != "2xx: the key is known" {
		t.Errorf("look-up of a bound key: %q", got)
	}
	if got := m.ExpectLookup("k2"); got != "404: the key was never sent" {
		t.Errorf("look-up of an unsent key: %q", got)
	}
}

func TestUnsettledListsKeysALostAttemptLeftOpen(t *testing.T) {
	m := model.New(ietf)
	m.Answer(model.Answer{Key: "k2", Payload: "100", Outcome: history.MaybeApplied})
	m.Answer(model.Answer{Key: "k2", Payload: "200", Outcome: history.MaybeApplied})
	m.Answer(model.Answer{Key: "k1", Payload: "100", Outcome: history.OK, Status: 201, ID: "r1"})
	m.Answer(model.Answer{Key: "k1", Payload: "200", Outcome: history.MaybeApplied})
	m.Answer(model.Answer{Key: "k3", Payload: "100", Outcome: history.Failed})
	got := m.Unsettled()
	want := []model.Pending{{Key: "k2", Payload: "200"}}
	if !slices.Equal(got, want) {
		t.Errorf("unsettled %v, want %v", got, want)
	}
	for key, n := range map[string]int{"k1": 1, "k2": -1, "k3": 0} {
		if got := m.Settled(key); got != n {
			t.Errorf("Settled(%s) = %d, want %d", key, got, n)
		}
	}
}
