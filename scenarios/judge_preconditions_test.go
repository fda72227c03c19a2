package scenarios_test

import (
	"context"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/scenarios"
	"github.com/idemspec/idemspec/targets"
)

// TestShouldSkipsWhereItsMustFails holds each SHOULD check that judges
// a status or a replay to the evidence rule: on the history that breaks
// the MUST it depends on, the MUST fails and the SHOULD is SKIP with the
// reason, never PASS (it saw no refusal, no replay, no in-flight answer).
func TestShouldSkipsWhereItsMustFails(t *testing.T) {
	mismatchAccepted := scenarios.MismatchRecord{
		Original: answer(1, "original", 201, "r1"),
		Mismatch: answer(2, "same key, other payload", 201, "r1"), // the original replayed
		Again:    answer(3, "original again", 201, "r1"),
		Reading:  reading(1, "r1"),
		Want:     422,
	}
	keylessAccepted := scenarios.MissingKeyRecord{Send: answer(1, "create without a key", 201, "r1"), Reading: reading(1, "r1"), Want: 400}
	executedAgain := []history.Exchange{answer(1, "original", 201, "r1"), answer(2, "replay", 201, "r2")}
	burstExecuted := scenarios.InFlightRecord{
		Bursts:   []history.Burst{{Key: "k", Size: 3}},
		Sends:    []history.Exchange{answer(1, "burst", 201, "r1"), answer(2, "burst", 201, "r2"), answer(3, "burst", 201, "r3")},
		InFlight: 409,
	}
	fiveHundreds := scenarios.OddKeyRecord{
		Keys: []scenarios.OddKey{
			{Case: "empty", Send: answer(1, "key: empty", 500, "")},
			{Case: "non-ASCII", Send: answer(2, "key: non-ASCII", 500, "")},
		},
		Reading: reading(0),
	}
	k4, _ := scenarios.ReplayFidelity(scenarios.ReplayRecord{Original: executedAgain[0], Replay: executedAgain[1]})
	k5, _ := scenarios.InFlightConflict(burstExecuted)
	burst := scenarios.BurstRecord{Sends: burstExecuted.Sends, FollowUp: answer(4, "follow-up", 201, "r1"), Reading: reading(3, "r1", "r2", "r3"), InFlight: 409}
	tests := []struct {
		pairing          string
		must, should     check.Verdict
		mustID, shouldID string
		reason           string
	}{
		{"S3, S3a: a mismatch replayed", scenarios.MismatchRejected(mismatchAccepted), scenarios.MismatchStatus(mismatchAccepted), "S3", "S3a",
			"S3 fails here: the reused key with another payload was not refused (201 id r1)"},
		{"K1, K1a: a keyless create accepted", scenarios.MissingKeyRefused(keylessAccepted), scenarios.MissingKeyStatus(keylessAccepted), "K1", "K1a",
			"K1 fails here: the create without the required key was accepted"},
		{"S1, K4: the same request executed again", scenarios.OneResource(executedAgain, reading(2, "r1", "r2")), k4, "S1", "K4",
			`S1 and S2 fail here: the same request again made another resource ("r2", the original "r1")`},
		{"S4, K5: every duplicate executed", scenarios.NoRaceDuplicates(burst), k5, "S4", "K5",
			"S4 fails here: one key's duplicates were executed again (3 resource ids)"},
		{"K2, K2a: every odd key a server error", scenarios.OddKeysSurvived(fiveHundreds), scenarios.OddKeysRefused(fiveHundreds), "K2", "K2a",
			"K2 fails here: each of the 2 keys outside the format got a server error or no answer"},
	}
	for _, tc := range tests {
		t.Run(tc.pairing, func(t *testing.T) {
			if tc.must.Check != tc.mustID || tc.must.Status != check.FAIL {
				t.Fatalf("%s: %s %s, want FAIL (the history must break the MUST)", tc.mustID, tc.must.Check, tc.must.Status)
			}
			expectVerdict(t, tc.should, tc.shouldID, check.SKIP, tc.reason)
		})
	}
}

// TestOddKeysWithoutDeclaredFormat: with no format declared, every
// single key is in the target's format (the harness marks them so), and
// only the duplicated header is outside the draft's grammar, which a
// server may accept or refuse: nothing had to be refused (SKIP, never a
// WARN), and the note says what the server did and why it is not
// charged.
func TestOddKeysWithoutDeclaredFormat(t *testing.T) {
	keys := func(dup int) scenarios.OddKeyRecord {
		return scenarios.OddKeyRecord{Keys: []scenarios.OddKey{
			{Case: "non-ASCII", Send: answer(1, "key: non-ASCII", 201, "r1"), InFormat: true},
			{Case: "inner whitespace", Send: answer(2, "key: inner whitespace", 201, "r2"), InFormat: true},
			{Case: "duplicated header", Send: answer(3, "key: duplicated header", dup, ""), May: harness.DuplicatedHeaderMay},
		}, Reading: reading(2, "r1", "r2")}
	}
	for _, c := range []struct {
		dup  int
		note string
	}{{400, "a key (duplicated header) was refused (400), request 3: not charged, the draft (§2.1)"}, {201, "a key (duplicated header) was accepted (201), request 3: not charged, the draft (§2.1)"}} {
		expectVerdict(t, scenarios.OddKeysRefused(keys(c.dup)), "K2a", check.SKIP, "each of the 3 odd keys sent is within the target's declared key format or one it may accept")
		if notes := scenarios.OddKeyNotes(keys(c.dup)); len(notes) != 1 || !strings.HasPrefix(notes[0], c.note) {
			t.Errorf("duplicated header answered %d: notes %q, want one starting %q", c.dup, notes, c.note)
		}
	}
	bodyKey := keys(400)
	bodyKey.Keys = bodyKey.Keys[:2] // a key in a body has no duplicated form
	expectVerdict(t, scenarios.OddKeysRefused(bodyKey), "K2a", check.SKIP, "each of the 2 odd keys sent is within the target's declared key format")
	if notes := scenarios.OddKeyNotes(bodyKey); len(notes) != 0 {
		t.Errorf("no duplicated header sent: notes %q", notes)
	}
}

// crashable is a target lifecycle that can be crashed.
type crashable struct{}

func (crashable) Stop() error                     { return nil }
func (crashable) Crash(ctx context.Context) error { return nil }
func (crashable) Restart(context.Context) error   { return nil }

// S5b needs to see an execution whose answer was never written, which
// the wire oracle cannot: with it, S5b is skipped, saying so; with a list
// the same crashable target runs it.
func TestS5bSkipsOnTheWire(t *testing.T) {
	wired := &targets.Target{Oracle: &targets.WireOracle{}, Runtime: targets.Runtime{Lifecycle: crashable{}}}
	if why := scenarios.S5b.Skips(wired); !strings.Contains(why, "wire oracle") {
		t.Errorf("S5b with oracle.wire: skip %q, want the wire oracle named", why)
	}
	listed := &targets.Target{Oracle: &targets.ListOracle{}, Runtime: targets.Runtime{Lifecycle: crashable{}}}
	if why := scenarios.S5b.Skips(listed); why != "" {
		t.Errorf("S5b with a list oracle: skipped (%q)", why)
	}
}
