package scenarios_test

import (
	"strings"
	"testing"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/scenarios"
)

// Hand-made exchanges: what the recording client would have written.

func answer(seq int, step string, status int, id string) history.Exchange {
	body := ""
	if id != "" {
		body = `{"id":"` + id + `"}`
	}
	return history.Exchange{Seq: seq, Step: step, Lane: "clean", Outcome: history.OK, Status: status, ResourceID: id, Body: body}
}

func withBody(x history.Exchange, body string) history.Exchange {
	x.Body = body
	return x
}

// lost is an attempt whose answer the client never saw: it may have been applied.
func lost(seq int, step string) history.Exchange {
	return history.Exchange{Seq: seq, Step: step, Lane: "faulty", Fault: "response-loss", Outcome: history.MaybeApplied, Error: "EOF"}
}

// refused is an attempt that certainly never reached the target.
func refused(seq int, step string) history.Exchange {
	return history.Exchange{Seq: seq, Step: step, Lane: "clean", Outcome: history.Failed, Error: "connection refused"}
}

func reading(count int, ids ...string) check.Reading {
	return check.Reading{Marker: "m", Count: count, IDs: ids, Oracle: "list"}
}

// countOnly is a reading from an oracle that counts without listing ids.
func countOnly(count int) check.Reading {
	return check.Reading{Marker: "m", Count: count, Oracle: "sql"}
}

// expectVerdict compares a verdict with the wanted status and, for
// anything but PASS, a fragment of its reason.
func expectVerdict(t *testing.T, got check.Verdict, id string, want check.Status, reason string) {
	t.Helper()
	if got.Check != id {
		t.Errorf("verdict for check %q, want %q", got.Check, id)
	}
	if got.Status != want {
		t.Fatalf("status %s, want %s (reason: %s)", got.Status, want, got.Reason)
	}
	switch want {
	case check.PASS:
		if len(got.Violations) != 0 || got.Reason != "" {
			t.Errorf("PASS carries violations %v / reason %q", got.Violations, got.Reason)
		}
	case check.FAIL, check.WARN:
		if len(got.Violations) == 0 {
			t.Errorf("%s carries no violations", got.Status)
		}
	}
	if !strings.Contains(got.Reason, reason) {
		t.Errorf("reason %q does not contain %q", got.Reason, reason)
	}
}

func TestOneResource(t *testing.T) {
	tests := []struct {
		name   string
		sends  []history.Exchange
		r      check.Reading
		want   check.Status
		reason string
	}{
		{
			name:  "one resource, every answer the same id",
			sends: []history.Exchange{answer(1, "send 1", 201, "r1"), answer(2, "send 2", 200, "r1"), answer(3, "send 3", 201, "r1")},
			r:     reading(1, "r1"),
			want:  check.PASS,
		},
		{
			name:  "an oracle that only counts",
			sends: []history.Exchange{answer(1, "send 1", 201, "r1"), answer(2, "send 2", 201, "r1")},
			r:     countOnly(1),
			want:  check.PASS,
		},
		{
			name:   "two resources",
			sends:  []history.Exchange{answer(1, "send 1", 201, "r1"), answer(2, "send 2", 201, "r1")},
			r:      reading(2, "r1", "r2"),
			want:   check.FAIL,
			reason: "the oracle (list) counts 2 resources for one key",
		},
		{
			name:   "no resource",
			sends:  []history.Exchange{answer(1, "send 1", 201, "r1")},
			r:      reading(0),
			want:   check.FAIL,
			reason: "counts 0 resources",
		},
		{
			name:   "answers carry different ids",
			sends:  []history.Exchange{answer(1, "send 1", 201, "r1"), answer(2, "send 2", 201, "r2")},
			r:      countOnly(1),
			want:   check.FAIL,
			reason: "different resource ids (expected one id, observed r1, r2)",
		},
		{
			name:   "a repeat answered 500",
			sends:  []history.Exchange{answer(1, "send 1", 201, "r1"), answer(2, "send 2", 500, "")},
			r:      reading(1, "r1"),
			want:   check.FAIL,
			reason: "send 2: an identical request was not answered as a success",
		},
		{
			name:   "a repeat answered 409",
			sends:  []history.Exchange{answer(1, "send 1", 201, "r1"), answer(2, "send 2", 409, "")},
			r:      reading(1, "r1"),
			want:   check.FAIL,
			reason: "observed 409",
		},
		{
			name:   "no answer on the clean lane",
			sends:  []history.Exchange{answer(1, "send 1", 201, "r1"), {Seq: 2, Step: "send 2", Lane: "clean", Outcome: history.MaybeApplied, Error: "EOF"}},
			r:      reading(1, "r1"),
			want:   check.ERROR,
			reason: "send 2 got no answer (maybe-applied: EOF), so the check could not see all it judges",
		},
		{
			// A missing answer hides no violation: the count judges.
			name:   "no answer, and a second resource",
			sends:  []history.Exchange{answer(1, "send 1", 201, "r1"), {Seq: 2, Step: "send 2", Lane: "clean", Outcome: history.MaybeApplied, Error: "EOF"}},
			r:      reading(2, "r1", "r2"),
			want:   check.FAIL,
			reason: "counts 2 resources for one key",
		},
		{
			// Both worlds: no answer named a resource, and none was made.
			name:   "every send unanswered, nothing made",
			sends:  []history.Exchange{{Seq: 1, Step: "send 1", Lane: "clean", Outcome: history.MaybeApplied, Error: "timeout"}, {Seq: 2, Step: "send 2", Lane: "clean", Outcome: history.MaybeApplied, Error: "timeout"}},
			r:      reading(0),
			want:   check.ERROR,
			reason: "send 1, send 2 got no answer (maybe-applied: timeout)",
		},
		{
			name:   "one send refused among answered ones",
			sends:  []history.Exchange{answer(1, "send 1", 201, "r1"), refused(2, "send 2")},
			r:      reading(1, "r1"),
			want:   check.ERROR,
			reason: "send 2 got no answer (failed: connection refused)",
		},
		{
			name:   "a 2xx without an id",
			sends:  []history.Exchange{answer(1, "send 1", 201, "r1"), answer(2, "send 2", 200, "")},
			r:      reading(1, "r1"),
			want:   check.FAIL,
			reason: "send 2: a 2xx answer carried no resource id",
		},
		{
			name:   "the oracle lists another id",
			sends:  []history.Exchange{answer(1, "send 1", 201, "r1"), answer(2, "send 2", 200, "r1")},
			r:      reading(1, "r9"),
			want:   check.FAIL,
			reason: "the answers name a resource the oracle does not list (expected r1, observed r9)",
		},
		{
			name:   "unreachable",
			sends:  []history.Exchange{refused(1, "send 1"), refused(2, "send 2")},
			r:      reading(0),
			want:   check.ERROR,
			reason: "could not be reached: connection refused",
		},
		{
			name:   "nothing sent",
			r:      reading(0),
			want:   check.ERROR,
			reason: "no request was sent",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			expectVerdict(t, scenarios.OneResource(tc.sends, tc.r), "S1", tc.want, tc.reason)
		})
	}
}

func TestOneResourceViolationNamesExchanges(t *testing.T) {
	v := scenarios.OneResource([]history.Exchange{answer(1, "send 1", 201, "r1"), answer(2, "send 2", 201, "r2"), answer(3, "send 3", 201, "r1")}, countOnly(1))
	if len(v.Violations) != 1 {
		t.Fatalf("violations %v, want one", v.Violations)
	}
	if got := v.Violations[0].Seqs; !equalInts(got, []int{1, 3, 2}) {
		t.Errorf("seqs %v, want the exchanges grouped by id: [1 3 2]", got)
	}
}

func TestReplayAfterLoss(t *testing.T) {
	first := withBody(answer(3, "retry 2", 201, "r1"), `{"id":"r1","amount":1,"meta":{"request_id":"a"}}`)
	replay := withBody(answer(4, "replay", 201, "r1"), `{"id":"r1","amount":1,"meta":{"request_id":"b"}}`)
	rec := func(edit func(*scenarios.LossRecord)) scenarios.LossRecord {
		r := scenarios.LossRecord{
			Lost:     []history.Exchange{lost(1, "first")},
			Retries:  []history.Exchange{answer(2, "retry 1", 409, ""), first},
			Replay:   replay,
			Reading:  reading(1, "r1"),
			InFlight: 409,
		}
		if edit != nil {
			edit(&r)
		}
		return r
	}
	tests := []struct {
		name   string
		rec    scenarios.LossRecord
		want   check.Status
		reason string
	}{
		{
			name: "replayed after an in-flight answer",
			rec:  rec(nil),
			want: check.PASS,
		},
		{
			// Both worlds: the lost attempt may or may not have been
			// applied; either way the retry's resource is the one.
			name: "several lost attempts, the first retry succeeds",
			rec: rec(func(r *scenarios.LossRecord) {
				r.Lost = []history.Exchange{lost(1, "first"), lost(2, "retry 1")}
				r.Retries = []history.Exchange{first}
			}),
			want: check.PASS,
		},
		{
			name: "a lost attempt the client never heard about is no violation",
			rec: rec(func(r *scenarios.LossRecord) {
				r.Lost = []history.Exchange{{Seq: 1, Step: "first", Lane: "faulty", Outcome: history.MaybeApplied, Error: "i/o timeout"}}
			}),
			want: check.PASS,
		},
		{
			name: "retry refused",
			rec: rec(func(r *scenarios.LossRecord) {
				r.Retries = []history.Exchange{answer(2, "retry 1", 500, ""), first}
			}),
			want:   check.FAIL,
			reason: "retry 1: the retry after a lost response was refused (expected 2xx, or 409 while the first request is still in flight, observed 500)",
		},
		{
			name: "only in-flight answers",
			rec: rec(func(r *scenarios.LossRecord) {
				r.Retries = []history.Exchange{answer(2, "retry 1", 409, ""), answer(3, "retry 2", 409, "")}
				r.Replay = answer(4, "replay", 409, "")
			}),
			want:   check.FAIL,
			reason: "no retry got a successful answer",
		},
		{
			name: "retry on the clean lane got no answer",
			rec: rec(func(r *scenarios.LossRecord) {
				r.Retries = []history.Exchange{{Seq: 2, Step: "retry 1", Lane: "clean", Outcome: history.MaybeApplied, Error: "EOF"}, first}
			}),
			want:   check.ERROR,
			reason: "retry 1 got no answer",
		},
		{
			name: "the replay carries another id",
			rec: rec(func(r *scenarios.LossRecord) {
				r.Replay = answer(4, "replay", 201, "r2")
			}),
			want:   check.FAIL,
			reason: "different resource ids",
		},
		{
			name: "a 2xx without an id",
			rec: rec(func(r *scenarios.LossRecord) {
				r.Retries = []history.Exchange{withBody(answer(3, "retry 2", 201, ""), `{}`)}
				r.Replay = withBody(answer(4, "replay", 201, ""), `{}`)
			}),
			want:   check.FAIL,
			reason: "retry 2: a 2xx answer carried no resource id",
		},
		{
			// Replay fidelity is K4's (a SHOULD): S2 holds the replay to
			// the original's resource, not to its bytes.
			name: "the replay's body differs but names the resource",
			rec: rec(func(r *scenarios.LossRecord) {
				r.Replay = withBody(replay, `{"id":"r1"}`)
			}),
			want: check.PASS,
		},
		{
			name: "the replay has another 2xx status",
			rec: rec(func(r *scenarios.LossRecord) {
				r.Replay.Status = 200
			}),
			want: check.PASS,
		},
		{
			name: "the second retry is refused",
			rec: rec(func(r *scenarios.LossRecord) {
				r.Replay = answer(4, "replay", 422, "")
			}),
			want:   check.FAIL,
			reason: "a second retry was refused after the first got the original result (expected 2xx with the original resource, observed 422)",
		},
		{
			name:   "two resources",
			rec:    rec(func(r *scenarios.LossRecord) { r.Reading = reading(2, "r1", "r2") }),
			want:   check.FAIL,
			reason: "counts 2 resources",
		},
		{
			name:   "the oracle lists another id",
			rec:    rec(func(r *scenarios.LossRecord) { r.Reading = reading(1, "r7") }),
			want:   check.FAIL,
			reason: "does not list (expected r1, observed r7)",
		},
		{
			name: "unreachable after the loss",
			rec: rec(func(r *scenarios.LossRecord) {
				r.Retries = []history.Exchange{refused(2, "retry 1")}
				r.Replay = refused(3, "replay")
			}),
			want:   check.ERROR,
			reason: "could not be reached",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			expectVerdict(t, scenarios.ReplayAfterLoss(tc.rec), "S2", tc.want, tc.reason)
		})
	}
}

func TestMismatchRejected(t *testing.T) {
	original := withBody(answer(1, "original", 201, "r1"), `{"id":"r1","amount":1,"created_at":"t1"}`)
	rec := func(edit func(*scenarios.MismatchRecord)) scenarios.MismatchRecord {
		r := scenarios.MismatchRecord{
			Original: original,
			Mismatch: withBody(answer(2, "mismatch", 422, ""), `{"error":"payload differs"}`),
			Again:    withBody(answer(3, "again", 201, "r1"), `{"id":"r1","amount":1,"created_at":"t2"}`),
			Reading:  reading(1, "r1"),
			Want:     422,
		}
		if edit != nil {
			edit(&r)
		}
		return r
	}
	tests := []struct {
		name   string
		rec    scenarios.MismatchRecord
		want   check.Status
		reason string
	}{
		{name: "rejected and the original replayed", rec: rec(nil), want: check.PASS},
		{
			name:   "mismatch replayed the original (payload ignored)",
			rec:    rec(func(r *scenarios.MismatchRecord) { r.Mismatch = answer(2, "mismatch", 201, "r1") }),
			want:   check.FAIL,
			reason: "a reused key with another payload was accepted (expected a refusal (4xx), observed 201 id r1)",
		},
		{
			name: "mismatch created another resource",
			rec: rec(func(r *scenarios.MismatchRecord) {
				r.Mismatch = answer(2, "mismatch", 201, "r2")
				r.Reading = reading(2, "r1", "r2")
			}),
			want:   check.FAIL,
			reason: "the other payload created another resource (expected r1, observed r2)",
		},
		{
			// The status of the refusal is S3a's (a SHOULD).
			name: "rejected with another 4xx",
			rec:  rec(func(r *scenarios.MismatchRecord) { r.Mismatch = answer(2, "mismatch", 417, "") }),
			want: check.PASS,
		},
		{
			name:   "answered 500",
			rec:    rec(func(r *scenarios.MismatchRecord) { r.Mismatch = answer(2, "mismatch", 500, "") }),
			want:   check.FAIL,
			reason: "a reused key with another payload was not refused (expected a refusal (4xx), observed 500)",
		},
		{
			name: "answered with the profile's status, a 5xx",
			rec: rec(func(r *scenarios.MismatchRecord) {
				r.Want = 500
				r.Mismatch = answer(2, "mismatch", 500, "")
			}),
			want: check.PASS,
		},
		{
			name:   "answered with a redirect",
			rec:    rec(func(r *scenarios.MismatchRecord) { r.Mismatch = answer(2, "mismatch", 303, "") }),
			want:   check.FAIL,
			reason: "was not refused",
		},
		{
			name: "mismatch got no answer",
			rec: rec(func(r *scenarios.MismatchRecord) {
				r.Mismatch = history.Exchange{Seq: 2, Step: "mismatch", Lane: "clean", Outcome: history.MaybeApplied, Error: "EOF"}
			}),
			want:   check.ERROR,
			reason: "mismatch got no answer",
		},
		{
			name:   "original no longer replayed: rejected",
			rec:    rec(func(r *scenarios.MismatchRecord) { r.Again = answer(3, "again", 422, "") }),
			want:   check.FAIL,
			reason: `the original request is no longer replayed after the mismatch (expected 2xx with id r1, observed 422 with id "")`,
		},
		{
			name:   "original no longer replayed: another id",
			rec:    rec(func(r *scenarios.MismatchRecord) { r.Again = answer(3, "again", 201, "r2") }),
			want:   check.FAIL,
			reason: "no longer replayed",
		},
		{
			// Replay fidelity is K4's (a SHOULD).
			name: "original replayed as 200 with a reduced body",
			rec: rec(func(r *scenarios.MismatchRecord) {
				r.Again = withBody(answer(3, "again", 200, "r1"), `{"id":"r1"}`)
			}),
			want: check.PASS,
		},
		{
			name:   "two resources",
			rec:    rec(func(r *scenarios.MismatchRecord) { r.Reading = countOnly(2) }),
			want:   check.FAIL,
			reason: "the oracle (sql) counts 2 resources",
		},
		{
			name:   "the oracle lists another id",
			rec:    rec(func(r *scenarios.MismatchRecord) { r.Reading = reading(1, "r2") }),
			want:   check.FAIL,
			reason: "does not list",
		},
		{
			name:   "original not accepted",
			rec:    rec(func(r *scenarios.MismatchRecord) { r.Original = answer(1, "original", 400, "") }),
			want:   check.ERROR,
			reason: "the original request was not accepted (status 400)",
		},
		{
			name: "unreachable",
			rec: rec(func(r *scenarios.MismatchRecord) {
				r.Original, r.Mismatch, r.Again = refused(1, "original"), refused(2, "mismatch"), refused(3, "again")
			}),
			want:   check.ERROR,
			reason: "could not be reached",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			expectVerdict(t, scenarios.MismatchRejected(tc.rec), "S3", tc.want, tc.reason)
		})
	}
}

func TestMismatchStatus(t *testing.T) {
	rec := func(status int, id string) scenarios.MismatchRecord {
		return scenarios.MismatchRecord{
			Original: answer(1, "original", 201, "r1"),
			Mismatch: answer(2, "mismatch", status, id),
			Again:    answer(3, "again", 201, "r1"),
			Reading:  reading(1, "r1"),
			Want:     422,
		}
	}
	tests := []struct {
		name   string
		rec    scenarios.MismatchRecord
		want   check.Status
		reason string
	}{
		{name: "the profile's status", rec: rec(422, ""), want: check.PASS},
		{name: "another 4xx", rec: rec(417, ""), want: check.WARN,
			reason: "a reused key with another payload was refused with another status than the profile's (expected 422, observed 417)"},
		// Acceptance and server errors are S3's failures: no refusal
		// came, so S3a has no status to judge, and says so.
		{name: "accepted", rec: rec(201, "r1"), want: check.SKIP, reason: "S3 fails here: the reused key with another payload was not refused (201 id r1), so there is no refusal status to judge"},
		{name: "a server error", rec: rec(500, ""), want: check.SKIP, reason: "was not refused (500)"},
		{name: "original refused", rec: func() scenarios.MismatchRecord {
			r := rec(417, "")
			r.Original = answer(1, "original", 400, "")
			return r
		}(),
			want: check.ERROR, reason: "not accepted"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			expectVerdict(t, scenarios.MismatchStatus(tc.rec), "S3a", tc.want, tc.reason)
		})
	}
}

func TestNoRaceDuplicates(t *testing.T) {
	burst := func(seq0 int, lane, fault string, edit func(*scenarios.BurstRecord)) scenarios.BurstRecord {
		r := scenarios.BurstRecord{
			Burst: history.Burst{Key: "k", Size: 4, Lane: lane, Fault: fault},
			Sends: []history.Exchange{
				answer(seq0, "burst 1/4", 201, "r1"),
				answer(seq0+1, "burst 2/4", 409, ""),
				answer(seq0+2, "burst 3/4", 200, "r1"),
				answer(seq0+3, "burst 4/4", 409, ""),
			},
			FollowUp: answer(seq0+4, "follow-up", 200, "r1"),
			Reading:  reading(1, "r1"),
			InFlight: 409,
		}
		if edit != nil {
			edit(&r)
		}
		return r
	}
	tests := []struct {
		name   string
		runs   []scenarios.BurstRecord
		want   check.Status
		reason string
	}{
		{name: "one burst, one resource", runs: []scenarios.BurstRecord{burst(1, "clean", "", nil)}, want: check.PASS},
		{
			name: "tight and widened bursts",
			runs: []scenarios.BurstRecord{burst(1, "clean", "", nil), burst(6, "faulty", "latency 50ms", nil)},
			want: check.PASS,
		},
		{
			name: "a burst request answered 500",
			runs: []scenarios.BurstRecord{burst(1, "clean", "", func(r *scenarios.BurstRecord) {
				r.Sends[1] = answer(2, "burst 2/4", 500, "")
			})},
			want:   check.FAIL,
			reason: "burst of 4 on the clean lane: burst 2/4 was neither a success nor a refusal (expected 2xx, 4xx or 409, observed 500)",
		},
		{
			// A refusal executed nothing; its status is K5's business.
			name: "a burst request refused with 429",
			runs: []scenarios.BurstRecord{burst(1, "clean", "", func(r *scenarios.BurstRecord) {
				r.Sends[3] = answer(4, "burst 4/4", 429, "")
			})},
			want: check.PASS,
		},
		{
			// A convention may answer in flight outside the 4xx range.
			name: "the profile's in-flight status is a 500",
			runs: []scenarios.BurstRecord{burst(1, "clean", "", func(r *scenarios.BurstRecord) {
				r.InFlight = 500
				r.Sends[1] = answer(2, "burst 2/4", 500, "")
				r.Sends[3] = answer(4, "burst 4/4", 500, "")
			})},
			want: check.PASS,
		},
		{
			name: "the follow-up still in flight",
			runs: []scenarios.BurstRecord{burst(1, "clean", "", func(r *scenarios.BurstRecord) {
				r.FollowUp = answer(5, "follow-up", 409, "")
			})},
			want:   check.FAIL,
			reason: "burst of 4 on the clean lane: the request after the burst was not answered with the stored result (expected 2xx, observed 409)",
		},
		{
			name: "two executions",
			runs: []scenarios.BurstRecord{burst(1, "clean", "", func(r *scenarios.BurstRecord) {
				r.Sends[1] = answer(2, "burst 2/4", 201, "r2")
				r.Reading = reading(2, "r1", "r2")
			})},
			want:   check.FAIL,
			reason: "burst of 4 on the clean lane: successful answers for one key carried different resource ids",
		},
		{
			name: "two resources behind one id",
			runs: []scenarios.BurstRecord{burst(1, "clean", "", func(r *scenarios.BurstRecord) {
				r.Reading = reading(2, "r1", "r2")
			})},
			want:   check.FAIL,
			reason: "burst of 4 on the clean lane: the oracle (list) counts 2 resources",
		},
		{
			name: "the oracle lists another id",
			runs: []scenarios.BurstRecord{burst(1, "clean", "", func(r *scenarios.BurstRecord) {
				r.Reading = reading(1, "r9")
			})},
			want:   check.FAIL,
			reason: "burst of 4 on the clean lane: the answers name a resource the oracle does not list",
		},
		{
			name: "a 2xx without an id",
			runs: []scenarios.BurstRecord{burst(1, "clean", "", func(r *scenarios.BurstRecord) {
				r.Sends[2] = answer(3, "burst 3/4", 200, "")
			})},
			want:   check.FAIL,
			reason: "burst of 4 on the clean lane: burst 3/4: a 2xx answer carried no resource id",
		},
		{
			name: "a burst request got no answer on the clean lane",
			runs: []scenarios.BurstRecord{burst(1, "clean", "", func(r *scenarios.BurstRecord) {
				r.Sends[1] = history.Exchange{Seq: 2, Step: "burst 2/4", Lane: "clean", Outcome: history.MaybeApplied, Error: "EOF"}
			})},
			want:   check.ERROR,
			reason: "burst 2/4 got no answer",
		},
		{
			name: "only the widened burst duplicates",
			runs: []scenarios.BurstRecord{
				burst(1, "clean", "", nil),
				burst(6, "faulty", "latency 50ms", func(r *scenarios.BurstRecord) { r.Reading = reading(2, "r1", "r2") }),
			},
			want:   check.FAIL,
			reason: "burst of 4 on the faulty lane with latency 50ms: the oracle (list) counts 2 resources",
		},
		{
			name: "unreachable",
			runs: []scenarios.BurstRecord{burst(1, "clean", "", func(r *scenarios.BurstRecord) {
				for i := range r.Sends {
					r.Sends[i] = refused(i+1, "burst")
				}
			})},
			want:   check.ERROR,
			reason: "could not be reached",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			expectVerdict(t, scenarios.NoRaceDuplicates(tc.runs...), "S4", tc.want, tc.reason)
		})
	}
}

func TestSameAnswer(t *testing.T) {
	tests := []struct {
		name     string
		a, b     history.Exchange
		volatile []string
		same     bool
		how      string
	}{
		{
			name: "identical",
			a:    withBody(answer(1, "a", 201, "r1"), `{"id":"r1"}`),
			b:    withBody(answer(2, "b", 201, "r1"), `{"id":"r1"}`),
			same: true,
		},
		{
			name: "key order and spacing do not matter",
			a:    withBody(answer(1, "a", 201, "r1"), `{"id":"r1","amount":1}`),
			b:    withBody(answer(2, "b", 201, "r1"), `{ "amount": 1, "id": "r1" }`),
			same: true,
		},
		{
			name: "status differs",
			a:    answer(1, "a", 201, "r1"),
			b:    answer(2, "b", 200, "r1"),
			how:  "status 201 vs 200",
		},
		{
			name:     "top-level volatile field",
			a:        withBody(answer(1, "a", 201, "r1"), `{"id":"r1","created_at":"t1"}`),
			b:        withBody(answer(2, "b", 201, "r1"), `{"id":"r1","created_at":"t2"}`),
			volatile: []string{"created_at"},
			same:     true,
		},
		{
			name: "undeclared volatile field",
			a:    withBody(answer(1, "a", 201, "r1"), `{"id":"r1","created_at":"t1"}`),
			b:    withBody(answer(2, "b", 201, "r1"), `{"id":"r1","created_at":"t2"}`),
			how:  "bodies differ beyond the volatile fields []",
		},
		{
			name:     "dotted volatile field",
			a:        withBody(answer(1, "a", 201, "r1"), `{"id":"r1","meta":{"request_id":"x","v":1}}`),
			b:        withBody(answer(2, "b", 201, "r1"), `{"id":"r1","meta":{"request_id":"y","v":1}}`),
			volatile: []string{"meta.request_id"},
			same:     true,
		},
		{
			name:     "dotted volatile field hides only itself",
			a:        withBody(answer(1, "a", 201, "r1"), `{"id":"r1","meta":{"request_id":"x","v":1}}`),
			b:        withBody(answer(2, "b", 201, "r1"), `{"id":"r1","meta":{"request_id":"y","v":2}}`),
			volatile: []string{"meta.request_id"},
			how:      "bodies differ beyond the volatile fields [meta.request_id]",
		},
		{
			name:     "a top-level name does not reach into objects",
			a:        withBody(answer(1, "a", 201, "r1"), `{"id":"r1","meta":{"request_id":"x"}}`),
			b:        withBody(answer(2, "b", 201, "r1"), `{"id":"r1","meta":{"request_id":"y"}}`),
			volatile: []string{"request_id"},
			how:      "bodies differ beyond the volatile fields [request_id]",
		},
		{
			name:     "a dotted path through a non-object is ignored",
			a:        withBody(answer(1, "a", 201, "r1"), `{"id":"r1","items":[{"at":"x"}]}`),
			b:        withBody(answer(2, "b", 201, "r1"), `{"id":"r1","items":[{"at":"y"}]}`),
			volatile: []string{"items.at", "id.x", "missing.deep.path"},
			how:      "bodies differ beyond",
		},
		{
			name: "bodies that are not JSON",
			a:    withBody(answer(1, "a", 201, "r1"), `created r1`),
			b:    withBody(answer(2, "b", 201, "r1"), `created r1 again`),
			how:  "bodies differ",
		},
		{
			name: "identical bodies that are not JSON",
			a:    withBody(answer(1, "a", 201, "r1"), `created r1`),
			b:    withBody(answer(2, "b", 201, "r1"), `created r1`),
			same: true,
		},
		{
			name: "trailing data after a JSON body",
			a:    withBody(answer(1, "a", 201, "r1"), `{"id":"r1"}`),
			b:    withBody(answer(2, "b", 201, "r1"), `{"id":"r1"} {"id":"r2"}`),
			how:  "bodies differ",
		},
		{
			// Two distinct 64-bit ids that a float64 cannot tell apart.
			name: "large numbers are compared exactly",
			a:    withBody(answer(1, "a", 201, "r1"), `{"id":9007199254740993}`),
			b:    withBody(answer(2, "b", 201, "r1"), `{"id":9007199254740992}`),
			how:  "bodies differ beyond",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			same, how := check.SameAnswer(tc.a, tc.b, tc.volatile)
			if same != tc.same {
				t.Fatalf("same = %v (%q), want %v", same, how, tc.same)
			}
			if tc.same && how != "" {
				t.Errorf("same answers explained as %q", how)
			}
			if !strings.Contains(how, tc.how) {
				t.Errorf("difference %q does not contain %q", how, tc.how)
			}
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
