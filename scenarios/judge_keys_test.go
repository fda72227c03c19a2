package scenarios_test

import (
	"strings"
	"testing"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/scenarios"
)

func withHeaders(x history.Exchange, kv ...string) history.Exchange {
	x.Headers = map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		x.Headers[kv[i]] = kv[i+1]
	}
	return x
}

func TestMissingKey(t *testing.T) {
	tests := []struct {
		name      string
		send      history.Exchange
		r         check.Reading
		k1, k1a   check.Status
		k1Reason  string
		k1aReason string
	}{
		{name: "refused with 400", send: answer(1, "create without a key", 400, ""), r: reading(0), k1: check.PASS, k1a: check.PASS},
		{
			name: "refused with 422", send: answer(1, "create without a key", 422, ""), r: reading(0),
			k1: check.PASS, k1a: check.WARN, k1aReason: "refused with another status than the profile's (expected 400, observed 422)",
		},
		{
			// K1's failure: no refusal came, so K1a has no status to
			// judge, and says so.
			name: "accepted", send: answer(1, "create without a key", 201, "r1"), r: reading(1, "r1"),
			k1: check.FAIL, k1Reason: "a create without the required key was accepted (expected a 4xx, observed 201); the oracle (list) counts 1 resources created without the key",
			k1a: check.SKIP, k1aReason: "K1 fails here: the create without the required key was accepted (201 id r1), so there is no refusal status to judge",
		},
		{
			name: "refused but created", send: answer(1, "create without a key", 400, ""), r: reading(1, "r1"),
			k1: check.FAIL, k1Reason: "counts 1 resources created without the key (expected 0, observed 1)", k1a: check.PASS,
		},
		{
			name: "no answer", send: lost(1, "create without a key"), r: reading(0),
			k1: check.ERROR, k1Reason: "create without a key got no answer", k1a: check.SKIP, k1aReason: "the create without the key got no answer (maybe-applied), so there is no refusal status to judge",
		},
		{
			// Unanswered, yet it made a resource: the effect judges.
			name: "no answer, and a resource made", send: lost(1, "create without a key"), r: reading(1, "r1"),
			k1: check.FAIL, k1Reason: "counts 1 resources created without the key", k1a: check.SKIP, k1aReason: "the create without the key got no answer (maybe-applied), so there is no refusal status to judge",
		},
		{
			name: "unreachable", send: refused(1, "create without a key"), r: reading(0),
			k1: check.ERROR, k1Reason: "could not be reached", k1a: check.ERROR, k1aReason: "could not be reached",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := scenarios.MissingKeyRecord{Send: tc.send, Reading: tc.r, Want: 400}
			expectVerdict(t, scenarios.MissingKeyRefused(rec), "K1", tc.k1, tc.k1Reason)
			expectVerdict(t, scenarios.MissingKeyStatus(rec), "K1a", tc.k1a, tc.k1aReason)
		})
	}
}

func TestOddKeys(t *testing.T) {
	refusedAll := func() []scenarios.OddKey {
		return []scenarios.OddKey{
			{Case: "empty", Send: answer(1, "key: empty", 400, "")},
			{Case: "256 characters", Send: answer(2, "key: 256 characters", 400, "")},
			{Case: "duplicated header", Send: answer(3, "key: duplicated header", 400, ""), May: harness.DuplicatedHeaderMay},
		}
	}
	tests := []struct {
		name      string
		edit      func(keys []scenarios.OddKey) []scenarios.OddKey
		r         check.Reading
		k2, k2a   check.Status
		k2Reason  string
		k2aReason string
	}{
		{name: "all refused", r: reading(0), k2: check.PASS, k2a: check.PASS},
		{
			name: "a 500", r: reading(0),
			edit: func(k []scenarios.OddKey) []scenarios.OddKey {
				k[1].Send = answer(2, "key: 256 characters", 500, "")
				return k
			},
			k2: check.FAIL, k2Reason: "a key (256 characters) was answered with a server error (expected a 4xx (or acceptance), observed 500)",
			k2a: check.PASS,
		},
		{
			name: "a dropped connection", r: reading(0),
			edit: func(k []scenarios.OddKey) []scenarios.OddKey { k[0].Send = lost(1, "key: empty"); return k },
			k2:   check.FAIL, k2Reason: "a key (empty) got no answer", k2a: check.PASS,
		},
		{
			// A server closes an idle keep-alive connection when it
			// likes: a drop on a reused one is not its answer.
			name: "a drop on a reused keep-alive connection", r: reading(0),
			edit: func(k []scenarios.OddKey) []scenarios.OddKey {
				k[0].Send = lost(1, "key: empty")
				k[0].Send.Reused, k[0].Send.Error = true, "read: connection reset by peer"
				return k
			},
			k2: check.ERROR, k2Reason: "key: empty", k2a: check.PASS,
		},
		{
			// The client gave up waiting: no answer is no dropped
			// connection, and nothing else to judge.
			name: "an answer that did not come in time", r: reading(0),
			edit: func(k []scenarios.OddKey) []scenarios.OddKey {
				k[0].Send = lost(1, "key: empty")
				k[0].Send.TimedOut, k[0].Send.Error = true, "context deadline exceeded"
				return k
			},
			k2: check.ERROR, k2Reason: "key: empty", k2a: check.PASS,
		},
		{
			// It may have been accepted, and made the one resource.
			name: "an answer that did not come in time, and a resource", r: reading(1, "r1"),
			edit: func(k []scenarios.OddKey) []scenarios.OddKey {
				k[0].Send = lost(1, "key: empty")
				k[0].Send.TimedOut = true
				return k
			},
			k2: check.ERROR, k2Reason: "key: empty", k2a: check.PASS,
		},
		{
			name: "an answer that did not come in time, and a 500", r: reading(0),
			edit: func(k []scenarios.OddKey) []scenarios.OddKey {
				k[0].Send = lost(1, "key: empty")
				k[0].Send.TimedOut = true
				k[1].Send = answer(2, "key: 256 characters", 500, "")
				return k
			},
			// The one refusal left is the duplicated header's, a MAY: no
			// evidence for K2a.
			k2: check.FAIL, k2Reason: "a key (256 characters) was answered with a server error", k2a: check.SKIP, k2aReason: "K2 fails here",
		},
		{
			// Two key headers are a MAY: taking one of them is no WARN
			// (OddKeyNotes says so).
			name: "duplicated header accepted", r: reading(1, "r1"),
			edit: func(k []scenarios.OddKey) []scenarios.OddKey {
				k[2].Send = answer(3, "key: duplicated header", 201, "r1")
				return k
			},
			k2: check.PASS, k2a: check.PASS,
		},
		{
			name: "a key outside the declared format accepted", r: reading(1, "r1"),
			edit: func(k []scenarios.OddKey) []scenarios.OddKey {
				k[1].Send = answer(2, "key: 256 characters", 201, "r1")
				return k
			},
			k2: check.PASS, k2a: check.WARN, k2aReason: "a key (256 characters) was accepted (expected a 4xx, observed 201)",
		},
		{
			// The declared pattern allows long keys: accepting one is right.
			name: "a long key the declared format accepts", r: reading(1, "r1"),
			edit: func(k []scenarios.OddKey) []scenarios.OddKey {
				k[1].Send, k[1].InFormat = answer(2, "key: 256 characters", 201, "r1"), true
				return k
			},
			k2: check.PASS, k2a: check.PASS,
		},
		{
			name: "refused keys created resources", r: reading(2, "r1", "r2"),
			k2: check.FAIL, k2Reason: "refused keys created resources: the oracle (list) counts 2, the answers accepted 0", k2a: check.PASS,
		},
		{
			name: "unreachable", r: reading(0),
			edit: func(k []scenarios.OddKey) []scenarios.OddKey {
				for i := range k {
					k[i].Send = refused(i+1, "key")
				}
				return k
			},
			k2: check.ERROR, k2Reason: "could not be reached", k2a: check.ERROR, k2aReason: "could not be reached",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			keys := refusedAll()
			if tc.edit != nil {
				keys = tc.edit(keys)
			}
			rec := scenarios.OddKeyRecord{Keys: keys, Reading: tc.r}
			expectVerdict(t, scenarios.OddKeysSurvived(rec), "K2", tc.k2, tc.k2Reason)
			expectVerdict(t, scenarios.OddKeysRefused(rec), "K2a", tc.k2a, tc.k2aReason)
		})
	}
}

func TestFingerprintScope(t *testing.T) {
	probe := func(name string, changed bool, status int, id string, r check.Reading) scenarios.Variation {
		return scenarios.Variation{
			Name: name, Changed: changed,
			Original: answer(1, name+": original", 201, "r1"),
			Variant:  answer(2, name+": variation", status, id),
			Reading:  r,
		}
	}
	tests := []struct {
		name   string
		vars   []scenarios.Variation
		want   check.Status
		reason string
		rows   [][]string // the "treated as" and "answer" columns
	}{
		{
			name: "changed field refused, the rest replayed or refused",
			vars: []scenarios.Variation{
				probe("changed body field", true, 422, "", reading(1, "r1")),
				probe("reordered JSON members", false, 200, "r1", reading(1, "r1")),
				probe("other whitespace", false, 422, "", reading(1, "r1")),
				{Name: "an added header", NotApplicable: "the create body is not JSON"},
			},
			want: check.PASS,
			rows: [][]string{
				{"a different request (refused)", "422"},
				{"the same request (replayed)", "200 id r1"},
				{"a different request (refused)", "422"},
				{"not sent: the create body is not JSON", ""},
			},
		},
		{
			name:   "changed field replayed",
			vars:   []scenarios.Variation{probe("changed body field", true, 201, "r1", reading(1, "r1"))},
			want:   check.FAIL,
			reason: "changed body field: a changed request was replayed as if it were the original (expected a 4xx, observed 201 id r1)",
			rows:   [][]string{{"the same request (replayed)", "201 id r1"}},
		},
		{
			name:   "a query parameter executes again",
			vars:   []scenarios.Variation{probe("an added query parameter", false, 201, "r2", reading(2, "r1", "r2"))},
			want:   check.FAIL,
			reason: "an added query parameter: the variation executed again under the original's key (expected a replay of r1 or a 4xx, observed 201 id r2)",
			rows:   [][]string{{"a new request (executed again)", "201 id r2"}},
		},
		{
			name:   "a server error",
			vars:   []scenarios.Variation{probe("other whitespace", false, 500, "", reading(1, "r1"))},
			want:   check.FAIL,
			reason: "other whitespace: the variation was neither replayed nor refused (expected a replay or a 4xx, observed 500)",
			rows:   [][]string{{"neither (500)", "500"}},
		},
		{
			// A convention may refuse outside the 4xx range (powertools: 500).
			name: "the profile's mismatch status outside 4xx",
			vars: []scenarios.Variation{probe("changed body field", true, 599, "", reading(1, "r1"))},
			want: check.PASS,
			rows: [][]string{{"a different request (refused)", "599"}},
		},
		{
			name:   "replayed, yet the oracle counts two",
			vars:   []scenarios.Variation{probe("an added header", false, 200, "r1", reading(2, "r1", "r2"))},
			want:   check.FAIL,
			reason: "an added header: the oracle (list) counts 2 resources for one key",
			rows:   [][]string{{"the same request (replayed)", "200 id r1"}},
		},
		{
			name: "the original was not accepted",
			vars: []scenarios.Variation{{
				Name: "changed body field", Changed: true,
				Original: answer(1, "original", 400, ""), Variant: answer(2, "variation", 400, ""), Reading: reading(0),
			}},
			want:   check.ERROR,
			reason: "changed body field: the original request was not accepted (status 400)",
		},
		{
			name: "a variation got no answer",
			vars: []scenarios.Variation{{
				Name: "other whitespace", Original: answer(1, "original", 201, "r1"), Variant: lost(2, "variation"), Reading: reading(1, "r1"),
			}},
			want:   check.ERROR,
			reason: "variation got no answer",
			rows:   [][]string{{"unknown (no answer)", "maybe-applied"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, table := scenarios.FingerprintScope(tc.vars, 599)
			expectVerdict(t, v, "K3", tc.want, tc.reason)
			if tc.want == check.ERROR {
				return
			}
			if len(table.Rows) != len(tc.vars) || len(table.Columns) != 4 {
				t.Fatalf("table %+v", table)
			}
			for i, row := range table.Rows {
				if row[0] != tc.vars[i].Name || row[2] != tc.rows[i][0] || row[3] != tc.rows[i][1] {
					t.Errorf("row %d = %q, want %s / %q", i, row, tc.vars[i].Name, tc.rows[i])
				}
				may := row[1] == "yes (MAY)"
				if may == tc.vars[i].Changed {
					t.Errorf("row %d says %q for a variation with Changed=%t", i, row[1], tc.vars[i].Changed)
				}
			}
		})
	}
}

func TestReplayFidelity(t *testing.T) {
	orig := withHeaders(withBody(answer(1, "original", 201, "r1"), `{"id":"r1","at":"t1"}`),
		"Content-Type", "application/json", "Location", "/r/r1")
	replay := func(edit func(*history.Exchange)) history.Exchange {
		x := withHeaders(withBody(answer(2, "replay", 201, "r1"), `{"id":"r1","at":"t1"}`),
			"Content-Type", "application/json", "Location", "/r/r1", "Idempotent-Replayed", "true")
		if edit != nil {
			edit(&x)
		}
		return x
	}
	markers := []string{"Idempotent-Replayed", "X-Idempotent-Replayed"}
	tests := []struct {
		name     string
		original history.Exchange
		replay   history.Exchange
		volatile []string
		want     check.Status
		reason   string
		note     string
	}{
		{name: "faithful, marked", original: orig, replay: replay(nil), want: check.PASS, note: "replay marker: Idempotent-Replayed: true"},
		{
			name: "faithful, unmarked", original: orig, replay: replay(func(x *history.Exchange) { delete(x.Headers, "Idempotent-Replayed") }),
			want: check.PASS, note: "replay marker: none",
		},
		{
			name: "a volatile field differs", original: orig, volatile: []string{"at"},
			replay: replay(func(x *history.Exchange) { x.Body = `{"id":"r1","at":"t2"}` }), want: check.PASS,
		},
		{
			name: "Location dropped", original: orig, replay: replay(func(x *history.Exchange) { delete(x.Headers, "Location") }),
			want: check.WARN, reason: `the replay's Location differs from the original's (expected "/r/r1", observed none)`,
		},
		{
			name: "another content type", original: orig, replay: replay(func(x *history.Exchange) { x.Headers["Content-Type"] = "text/plain" }),
			want: check.WARN, reason: `the replay's Content-Type differs from the original's (expected "application/json", observed "text/plain")`,
		},
		{
			name: "200 instead of 201", original: orig, replay: replay(func(x *history.Exchange) { x.Status = 200 }),
			want: check.WARN, reason: "the replay's status or body differs from the original's (observed status 201 vs 200)",
		},
		{
			name: "a marker on every answer marks nothing", replay: replay(nil),
			original: withHeaders(orig, "Content-Type", "application/json", "Location", "/r/r1", "Idempotent-Replayed", "false"),
			want:     check.PASS, note: "Idempotent-Replayed is on the original answer too",
		},
		{
			name: "the original was refused", original: answer(1, "original", 400, ""), replay: answer(2, "replay", 400, ""),
			want: check.ERROR, reason: "the original request was not accepted (status 400)",
		},
		{name: "the replay got no answer", original: orig, replay: lost(2, "replay"), want: check.ERROR, reason: "replay got no answer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, notes := scenarios.ReplayFidelity(scenarios.ReplayRecord{Original: tc.original, Replay: tc.replay, Volatile: tc.volatile, Markers: markers})
			expectVerdict(t, v, "K4", tc.want, tc.reason)
			if tc.note != "" && (len(notes) != 1 || !strings.Contains(notes[0], tc.note)) {
				t.Errorf("notes %q, want one containing %q", notes, tc.note)
			}
		})
	}
}

func TestInFlightConflict(t *testing.T) {
	burst := func(answers ...history.Exchange) scenarios.InFlightRecord {
		return scenarios.InFlightRecord{Bursts: []history.Burst{{Key: "k", Size: len(answers)}}, Sends: answers, InFlight: 409}
	}
	stalledAnswer := func(seq, status int) history.Exchange {
		x := answer(seq, "burst", status, "")
		x.Stalled = true
		if status == 409 {
			x = withHeaders(x, "Retry-After", "1")
		}
		return x
	}
	conflict := func(seq int, retryAfter string) history.Exchange {
		x := answer(seq, "burst", 409, "")
		if retryAfter != "" {
			x = withHeaders(x, "Retry-After", retryAfter)
		}
		return x
	}
	tests := []struct {
		name   string
		rec    scenarios.InFlightRecord
		want   check.Status
		reason string
		note   string
	}{
		{
			name: "409 with Retry-After",
			rec:  burst(answer(1, "burst", 201, "r1"), conflict(2, "1"), conflict(3, "1")),
			want: check.PASS, note: "of 3 same-key requests in 1 bursts: 1 succeeded (duplicates serialized and replayed are acceptable; a second execution is S4's failure), 2 answered 409 in flight (Retry-After: 1 ×2)",
		},
		{
			name: "409 without Retry-After, and an HTTP-date",
			rec:  burst(answer(1, "burst", 201, "r1"), conflict(2, ""), conflict(3, "Fri, 31 Dec 1999 23:59:59 GMT")),
			want: check.PASS, note: "(Retry-After: none ×1, Fri, 31 Dec 1999 23:59:59 GMT ×1)",
		},
		{
			name:   "serialized: every duplicate replayed",
			rec:    burst(answer(1, "burst", 201, "r1"), answer(2, "burst", 200, "r1"), answer(3, "burst", 200, "r1")),
			want:   check.SKIP,
			reason: "no duplicate of the 3 same-key requests in 1 bursts was refused: the answered ones were served one after another (acceptable), so no in-flight answer came to judge",
		},
		{
			name: "429 instead of 409",
			rec:  burst(answer(1, "burst", 201, "r1"), answer(2, "burst", 429, ""), answer(3, "burst", 429, ""), answer(4, "burst", 423, "")),
			want: check.WARN,
			reason: "1 duplicates of a request in flight were refused with another status than the profile's (expected 409, observed 423); " +
				"2 duplicates of a request in flight were refused with another status than the profile's (expected 409, observed 429)",
		},
		{
			// idemspec held these bodies so long that the server's read
			// timeout may have cut them: a 400 is then idemspec's doing.
			name: "refusals of bodies held too long",
			rec:  burst(answer(1, "burst", 201, "r1"), stalledAnswer(2, 400), stalledAnswer(3, 409), conflict(4, "1")),
			want: check.PASS, note: "2 answered 409 in flight (Retry-After: 1 ×2), 1 refused after idemspec held their bodies past 750ms",
		},
		{
			name:   "no refusal but of bodies held too long",
			rec:    burst(answer(1, "burst", 201, "r1"), stalledAnswer(2, 400), stalledAnswer(3, 400)),
			want:   check.SKIP,
			reason: "2 refused after idemspec held their bodies past 750ms on a busy machine (a server's read timeout may have cut them: not judged), so no in-flight answer came to judge",
		},
		{
			name:   "a Retry-After that does not parse",
			rec:    burst(answer(1, "burst", 201, "r1"), conflict(2, "soon"), conflict(3, "1")),
			want:   check.WARN,
			reason: `1 in-flight answers carry a Retry-After that does not parse (expected delay-seconds or an HTTP-date, observed 1 ×1, soon ×1)`,
		},
		{
			// Two executions are S4's failure: with no refusal, K5 has
			// nothing to judge.
			name:   "two executions",
			rec:    burst(answer(1, "burst", 201, "r1"), answer(2, "burst", 201, "r2")),
			want:   check.SKIP,
			reason: "S4 fails here: one key's duplicates were executed again (2 resource ids), so no in-flight answer came to judge",
		},
		{
			// With refusals, their status is judged, and the second
			// execution only counted.
			name: "two executions and a refusal",
			rec:  burst(answer(1, "burst", 201, "r1"), answer(2, "burst", 201, "r2"), conflict(3, "1")),
			want: check.PASS, note: "2 succeeded",
		},
		{
			name: "silence is S4's",
			rec:  burst(answer(1, "burst", 201, "r1"), lost(2, "burst"), conflict(3, "1")),
			want: check.PASS, note: "1 got no answer (judged by S4)",
		},
		{
			name:   "silence and no refusal",
			rec:    burst(answer(1, "burst", 201, "r1"), lost(2, "burst")),
			want:   check.SKIP,
			reason: "1 got no answer (S4's to judge), so no in-flight answer came to judge",
		},
		{name: "unreachable", rec: burst(refused(1, "burst"), refused(2, "burst")), want: check.ERROR, reason: "could not be reached"},
		{name: "nothing answered", rec: burst(lost(1, "burst"), lost(2, "burst")), want: check.ERROR, reason: "none of the 2 same-key requests was answered"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, notes := scenarios.InFlightConflict(tc.rec)
			expectVerdict(t, v, "K5", tc.want, tc.reason)
			if tc.note != "" && (len(notes) != 1 || !strings.Contains(notes[0], tc.note)) {
				t.Errorf("notes %q, want one containing %q", notes, tc.note)
			}
		})
	}
}

func TestFailedFirstAttempt(t *testing.T) {
	failed := withBody(answer(1, "first (made to fail)", 503, ""), `{"status":503}`)
	stored := func(seq int, step string) history.Exchange {
		return withBody(answer(seq, step, 503, ""), `{"status":503}`)
	}
	tests := []struct {
		name   string
		rec    scenarios.FailedFirstRecord
		want   check.Status
		reason string
		note   string
	}{
		{
			name: "stored and replayed, nothing created",
			rec: scenarios.FailedFirstRecord{First: failed, Retries: []history.Exchange{stored(2, "retry")}, Again: stored(3, "second retry"),
				Reading: reading(0), Convention: "replayed"},
			want: check.PASS, note: "the target stored the failed attempt's 503 and replays it to retries (as Stripe does)",
		},
		{
			// How faithfully the failure is replayed is not K6's question.
			name: "stored and replayed with another body",
			rec: scenarios.FailedFirstRecord{First: failed, Retries: []history.Exchange{withBody(answer(2, "retry", 503, ""), `{"status":503,"retry":true}`)},
				Again: stored(3, "second retry"), Reading: reading(0), Convention: "replayed"},
			want: check.PASS, note: "the target stored the failed attempt's 503 and replays it",
		},
		{
			name: "retried afresh, one resource",
			rec: scenarios.FailedFirstRecord{First: failed, Retries: []history.Exchange{answer(2, "retry", 201, "r1")}, Again: answer(3, "second retry", 200, "r1"),
				Reading: reading(1, "r1"), Convention: "replayed"},
			want: check.PASS, note: `executed the retry afresh (as Brandur Leach's design and Powertools do); the profile's convention is "replayed" (either is acceptable)`,
		},
		{
			name: "retried afresh after waiting out an in-flight answer",
			rec: scenarios.FailedFirstRecord{First: failed, Retries: []history.Exchange{answer(2, "retry", 409, ""), answer(3, "retry (2)", 201, "r1")},
				Again: answer(4, "second retry", 201, "r1"), Reading: reading(1, "r1"), InFlight: 409},
			want: check.PASS,
		},
		{
			name: "the failed attempt left a resource behind, and the retry made another",
			rec: scenarios.FailedFirstRecord{First: failed, Retries: []history.Exchange{answer(2, "retry", 201, "r2")}, Again: answer(3, "second retry", 200, "r2"),
				Reading: reading(2, "r1", "r2")},
			want: check.FAIL, reason: "the oracle (list) counts 2 resources for one key (expected 1, observed 2)",
		},
		{
			name: "the failure is replayed over a resource that exists",
			rec: scenarios.FailedFirstRecord{First: failed, Retries: []history.Exchange{stored(2, "retry")}, Again: stored(3, "second retry"),
				Reading: reading(1, "r1")},
			want: check.FAIL, reason: "every answer says the create failed, yet the oracle (list) counts 1 resources",
		},
		{
			name: "stuck in flight",
			rec: scenarios.FailedFirstRecord{First: failed, Retries: []history.Exchange{answer(2, "retry", 409, ""), answer(3, "retry (2)", 409, "")},
				Again: answer(4, "second retry", 409, ""), Reading: reading(0), InFlight: 409},
			want: check.FAIL, reason: "the key stayed in flight after the failed attempt",
		},
		{
			name: "the retry is refused",
			rec: scenarios.FailedFirstRecord{First: failed, Retries: []history.Exchange{answer(2, "retry", 422, "")}, Again: answer(3, "second retry", 422, ""),
				Reading: reading(0)},
			want: check.FAIL, reason: "got neither the stored failure nor a fresh execution (expected 503 replayed, or 2xx, observed 422)",
		},
		{
			name: "the second retry disagrees",
			rec: scenarios.FailedFirstRecord{First: failed, Retries: []history.Exchange{answer(2, "retry", 201, "r1")}, Again: stored(3, "second retry"),
				Reading: reading(1, "r1")},
			want: check.FAIL, reason: "a second retry got another answer than the first (expected 201 id r1, observed 503)",
		},
		{
			name: "the stored failure is not replayed the second time",
			rec: scenarios.FailedFirstRecord{First: failed, Retries: []history.Exchange{stored(2, "retry")}, Again: answer(3, "second retry", 201, "r1"),
				Reading: reading(1, "r1")},
			want: check.FAIL, reason: "a second retry got another answer than the first (expected 503, observed 201 id r1)",
		},
		{
			name: "two executions among the retries",
			rec: scenarios.FailedFirstRecord{First: failed, Retries: []history.Exchange{answer(2, "retry", 201, "r1")}, Again: answer(3, "second retry", 201, "r2"),
				Reading: reading(2, "r1", "r2")},
			want: check.FAIL, reason: "successful answers for one key carried different resource ids",
		},
		{
			name: "the trigger did not fail the create",
			rec: scenarios.FailedFirstRecord{First: answer(1, "first", 201, "r1"), Retries: []history.Exchange{answer(2, "retry", 200, "r1")},
				Again: answer(3, "again", 200, "r1"), Reading: reading(1, "r1")},
			want: check.ERROR, reason: "the fail trigger did not make the first attempt fail with a 5xx (201 id r1)",
		},
		{
			name: "a retry got no answer",
			rec:  scenarios.FailedFirstRecord{First: failed, Retries: []history.Exchange{lost(2, "retry")}, Again: stored(3, "second retry"), Reading: reading(0)},
			want: check.ERROR, reason: "retry got no answer",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, notes := scenarios.FailedFirstAttempt(tc.rec)
			expectVerdict(t, v, "K6", tc.want, tc.reason)
			if tc.note != "" && (len(notes) != 1 || !strings.Contains(notes[0], tc.note)) {
				t.Errorf("notes %q, want one containing %q", notes, tc.note)
			}
		})
	}
}
