package scenarios_test

import (
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/scenarios"
)

func TestRestartRecovery(t *testing.T) {
	restart := history.Restart{Mode: "graceful"}
	cases := []struct {
		name     string
		original history.Exchange
		retry    history.Exchange
		reading  check.Reading
		want     check.Status
		reason   string
	}{
		{name: "replayed after the restart", original: answer(1, "original", 201, "r1"), retry: answer(2, "again", 201, "r1"), reading: reading(1, "r1"), want: check.PASS},
		{name: "replayed, a volatile field changed", original: withBody(answer(1, "original", 201, "r1"), `{"id":"r1","at":"1"}`), retry: withBody(answer(2, "again", 201, "r1"), `{"id":"r1","at":"2"}`), reading: reading(1, "r1"), want: check.PASS},
		{name: "record forgotten: a second resource", original: answer(1, "original", 201, "r1"), retry: answer(2, "again", 201, "r2"), reading: reading(2, "r1", "r2"),
			want: check.FAIL, reason: "the key record did not survive the restart"},
		{name: "refused after the restart", original: answer(1, "original", 201, "r1"), retry: answer(2, "again", 409, ""), reading: reading(1, "r1"),
			want: check.FAIL, reason: "after the restart, the same request with the same key was refused (expected 2xx (the original answer, replayed), observed 409)"},
		// Replay fidelity is K4's (a SHOULD): S5a asks that the record
		// survived, which the same resource id shows.
		{name: "replayed as 200 with a reduced body", original: withBody(answer(1, "original", 201, "r1"), `{"id":"r1","amount":1}`), retry: withBody(answer(2, "again", 200, "r1"), `{"id":"r1"}`), reading: reading(1, "r1"),
			want: check.PASS},
		{name: "retry unanswered", original: answer(1, "original", 201, "r1"), retry: lost(2, "again"), reading: reading(1, "r1"),
			want: check.ERROR, reason: "again got no answer"},
		{name: "original refused: nothing to recover", original: answer(1, "original", 400, ""), retry: answer(2, "again", 400, ""), reading: reading(0),
			want: check.ERROR, reason: "not accepted (status 400)"},
		{name: "target unreachable", original: refused(1, "original"), retry: refused(2, "again"), reading: reading(0),
			want: check.ERROR, reason: "could not be reached"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := scenarios.RestartRecovery(scenarios.RestartRecord{Original: c.original, Restart: restart, Retry: c.retry, Reading: c.reading})
			expectVerdict(t, got, "S5a", c.want, c.reason)
		})
	}
}

// TestRestartRecoveryRounds: S5a judges every round it ran; one round
// whose restart landed in the gap is a FAIL, whatever the others showed.
func TestRestartRecoveryRounds(t *testing.T) {
	restart := history.Restart{Mode: "graceful"}
	kept := scenarios.RestartRecord{Original: answer(1, "original", 201, "r1"), Restart: restart, Retry: answer(2, "again", 201, "r1"), Reading: reading(1, "r1")}
	lostInGap := scenarios.RestartRecord{Original: answer(3, "original (round 2)", 201, "r2"), Restart: restart, Retry: answer(4, "again (round 2)", 409, ""), Reading: reading(1, "r2")}
	unreachable := scenarios.RestartRecord{Original: refused(5, "original (round 3)"), Restart: restart, Retry: refused(6, "again (round 3)"), Reading: reading(0)}
	expectVerdict(t, scenarios.RestartRecovery(kept, kept), "S5a", check.PASS, "")
	got := scenarios.RestartRecovery(kept, lostInGap)
	expectVerdict(t, got, "S5a", check.FAIL, "the same request with the same key was refused")
	if len(got.Violations) != 1 || got.Violations[0].Seqs[0] != 4 {
		t.Errorf("violations %+v, want one, on seq 4", got.Violations)
	}
	expectVerdict(t, scenarios.RestartRecovery(kept, unreachable), "S5a", check.ERROR, "could not be reached")
}

// TestRestartRecoveryCutAnswer: a target that exits without finishing
// its requests in flight cuts the original's answer after its first
// byte. That answer is maybe-applied, never a violation by itself; the
// effect is judged: one resource after the retry, and the retry names it.
func TestRestartRecoveryCutAnswer(t *testing.T) {
	onFirstByte := history.Restart{Mode: "graceful", Point: harness.OnFirstByte, Seqs: []int{1}}
	bodyCut := history.Exchange{Seq: 1, Step: "original", Lane: "clean", Outcome: history.MaybeApplied, Status: 201, Error: "reading the answer: unexpected EOF"}
	headCut := history.Exchange{Seq: 1, Step: "original", Lane: "clean", Outcome: history.MaybeApplied, Error: "unexpected EOF"}
	refusedCut := bodyCut
	refusedCut.Status = 400
	cases := []struct {
		name     string
		original history.Exchange
		restart  history.Restart
		retry    history.Exchange
		reading  check.Reading
		want     check.Status
		reason   string
	}{
		{name: "body cut, replayed after the restart", original: bodyCut, restart: onFirstByte, retry: answer(2, "again", 201, "r1"), reading: reading(1, "r1"), want: check.PASS},
		{name: "head cut, replayed after the restart", original: headCut, restart: onFirstByte, retry: answer(2, "again", 201, "r1"), reading: reading(1, "r1"), want: check.PASS},
		{name: "cut, counted by an oracle without ids", original: bodyCut, restart: onFirstByte, retry: answer(2, "again", 201, "r1"), reading: countOnly(1), want: check.PASS},
		{name: "cut, the retry created a second resource", original: bodyCut, restart: onFirstByte, retry: answer(2, "again", 201, "r2"), reading: reading(2, "r1", "r2"),
			want: check.FAIL, reason: "the oracle (list) counts 2 resources for one key"},
		{name: "cut, the retry names another resource than the one listed", original: bodyCut, restart: onFirstByte, retry: answer(2, "again", 201, "r2"), reading: reading(1, "r1"),
			want: check.FAIL, reason: "the answers name a resource the oracle does not list (expected r2, observed r1)"},
		{name: "cut, refused after the restart", original: bodyCut, restart: onFirstByte, retry: answer(2, "again", 409, ""), reading: reading(1, "r1"),
			want: check.FAIL, reason: "the same request with the same key was refused"},
		{name: "cut, the retry unanswered", original: bodyCut, restart: onFirstByte, retry: lost(2, "again"), reading: reading(1, "r1"),
			want: check.ERROR, reason: "again got no answer"},
		{name: "cut, a refusal's status", original: refusedCut, restart: onFirstByte, retry: answer(2, "again", 400, ""), reading: reading(0),
			want: check.ERROR, reason: "not accepted (status 400)"},
		// Never answered: the restart followed the attempt, and the
		// original got no answer at all, which is not a cut.
		{name: "never answered", original: headCut, restart: history.Restart{Mode: "graceful"}, retry: answer(2, "again", 201, "r1"), reading: reading(1, "r1"),
			want: check.ERROR, reason: "original got no answer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := scenarios.RestartRecord{Original: c.original, Restart: c.restart, Retry: c.retry, Reading: c.reading}
			expectVerdict(t, scenarios.RestartRecovery(rec), "S5a", c.want, c.reason)
			if got, want := scenarios.Cut(rec), c.restart.Point != "" && c.original.Outcome != history.OK; got != want {
				t.Errorf("Cut = %v, want %v", got, want)
			}
		})
	}
}

func TestCrashMidRequest(t *testing.T) {
	crashAt := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	const timeout = 2 * time.Second
	// sent is an answer to a retry started d after the crash.
	sent := func(x history.Exchange, d time.Duration) history.Exchange {
		x.Start = crashAt.Add(d)
		return x
	}
	inFlight := func(seq int, d time.Duration) history.Exchange {
		return sent(answer(seq, "retry", 409, ""), d)
	}
	retryLater := func(x history.Exchange) history.Exchange {
		x.Headers = map[string]string{"Retry-After": "1"}
		return x
	}
	killed := lost(1, "crashed")
	cases := []struct {
		name          string
		crashed       history.Exchange
		before, after check.Reading
		retries       []history.Exchange
		want          check.Status
		reason        string
	}{
		{name: "taken over after the in-progress timeout", crashed: killed, before: reading(0), after: reading(1, "r1"),
			retries: []history.Exchange{inFlight(2, 100*time.Millisecond), inFlight(3, 1100*time.Millisecond), sent(answer(4, "retry", 201, "r1"), 2100*time.Millisecond)}, want: check.PASS},
		{name: "no record kept: the retry simply runs", crashed: killed, before: reading(0), after: reading(1, "r1"),
			retries: []history.Exchange{sent(answer(2, "retry", 201, "r1"), 50*time.Millisecond)}, want: check.PASS},
		{name: "committed before the crash and replayed", crashed: killed, before: reading(1, "r1"), after: reading(1, "r1"),
			retries: []history.Exchange{sent(answer(2, "retry", 201, "r1"), 50*time.Millisecond)}, want: check.PASS},
		{name: "answered before the crash, replayed after", crashed: answer(1, "crashed", 201, "r1"), before: reading(1, "r1"), after: reading(1, "r1"),
			retries: []history.Exchange{sent(answer(2, "retry", 201, "r1"), 50*time.Millisecond)}, want: check.PASS},
		{name: "split commit: the takeover creates a second resource", crashed: killed, before: reading(1, "r1"), after: reading(2, "r1", "r2"),
			retries: []history.Exchange{inFlight(2, 100*time.Millisecond), sent(answer(3, "retry", 201, "r2"), 2100*time.Millisecond)},
			want:    check.FAIL, reason: "after the retries, the oracle (list) counts 2 resources for one key"},
		{name: "two resources before any retry", crashed: killed, before: reading(2, "r1", "r2"), after: reading(2, "r1", "r2"),
			retries: []history.Exchange{sent(answer(2, "retry", 201, "r1"), 50*time.Millisecond)},
			want:    check.FAIL, reason: "the crash left 2 resources for one key before any retry (expected at most 1"},
		{name: "stuck: in flight past the in-progress timeout", crashed: killed, before: reading(0), after: reading(0),
			retries: []history.Exchange{inFlight(2, 100*time.Millisecond), inFlight(3, 1100*time.Millisecond), inFlight(4, 2100*time.Millisecond), inFlight(5, 3100*time.Millisecond)},
			want:    check.FAIL, reason: "the key stayed in progress past the declared in-progress timeout: the operation can never complete (expected a final answer to a retry sent 2s or more after the crash, observed 409 (still in progress) to a retry sent 3.1s after the crash, 4 such answers in all)"},
		{name: "in flight at exactly the timeout is stuck", crashed: killed, before: reading(0), after: reading(0),
			retries: []history.Exchange{inFlight(2, timeout)}, want: check.FAIL, reason: "stayed in progress"},
		{name: "the harness gave up too early", crashed: killed, before: reading(0), after: reading(0),
			retries: []history.Exchange{inFlight(2, 100*time.Millisecond), inFlight(3, 1900*time.Millisecond)},
			want:    check.ERROR, reason: "stopped retrying 1.9s after the crash, before the in-progress timeout (2s)"},
		{name: "refused after the crash", crashed: killed, before: reading(0), after: reading(0),
			retries: []history.Exchange{sent(answer(2, "retry", 500, ""), 50*time.Millisecond)},
			want:    check.FAIL, reason: "retry: the retry after the crash was refused (expected 2xx, or 409 (or another answer with Retry-After) until the in-progress timeout (2s) has passed, observed 500)"},
		{name: "another status with Retry-After is a 'not yet'", crashed: killed, before: reading(0), after: reading(1, "r1"),
			retries: []history.Exchange{retryLater(sent(answer(2, "retry", 429, ""), 100*time.Millisecond)), sent(answer(3, "retry", 201, "r1"), 2100*time.Millisecond)}, want: check.PASS},
		{name: "stuck behind 503 Retry-After", crashed: killed, before: reading(0), after: reading(0),
			retries: []history.Exchange{retryLater(sent(answer(2, "retry", 503, ""), 2500*time.Millisecond))}, want: check.FAIL, reason: "observed 503 (still in progress)"},
		{name: "replay names another resource than the crashed answer", crashed: answer(1, "crashed", 201, "r1"), before: reading(1, "r1"), after: reading(2, "r1", "r2"),
			retries: []history.Exchange{sent(answer(2, "retry", 201, "r2"), 50*time.Millisecond)},
			want:    check.FAIL, reason: "successful answers for one key carried different resource ids"},
		{name: "target gone after the crash", crashed: killed, before: reading(0), after: reading(0),
			retries: []history.Exchange{refused(2, "retry")}, want: check.ERROR, reason: "could not be reached"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := scenarios.CrashMidRequest(scenarios.CrashRecord{
				Crashed: c.crashed, Crash: history.Restart{Mode: "crash", At: crashAt},
				Before: c.before, Retries: c.retries, After: c.after, InFlight: 409, InProgressTimeout: timeout,
			})
			expectVerdict(t, got, "S5b", c.want, c.reason)
		})
	}
}

// TestCrashMidRequestMissed: a crash that came after the answer (a
// process.crash_at line the process never wrote) is no evidence. The
// record would PASS a crash-unsafe target (the answer committed, the
// retry replays it), so S5b is ERROR and says what it waited for.
func TestCrashMidRequestMissed(t *testing.T) {
	crashAt := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	missed := (&harness.CrashMissed{Awaited: `the line process.crash_at names, "working key=\"k1\""`, Outcome: history.OK, Status: 201}).Error()
	rec := scenarios.CrashRecord{
		Crashed: answer(1, "crashed", 201, "r1"), Crash: history.Restart{Mode: "crash", At: crashAt},
		Before: reading(1, "r1"), After: reading(1, "r1"), InFlight: 409, InProgressTimeout: 2 * time.Second,
		Retries: []history.Exchange{answer(2, "retry", 201, "r1")},
	}
	expectVerdict(t, scenarios.CrashMidRequest(rec), "S5b", check.PASS, "")
	rec.Missed, rec.Retries, rec.After = missed, nil, check.Reading{}
	got := scenarios.CrashMidRequest(rec)
	expectVerdict(t, got, "S5b", check.ERROR, `before it reached the line process.crash_at names, "working key=\"k1\""`)
	for _, want := range []string{"did not land mid-request", "ok 201", "shows nothing of a crash mid-request"} {
		if !strings.Contains(got.Reason, want) {
			t.Errorf("reason %q does not say %q", got.Reason, want)
		}
	}
}

// TestCrashMidRequestBeyondTheCap: a declared in-progress timeout longer
// than the harness may wait is not waited out. Retries that show the key
// blocked, and nothing executed twice, give a WARN that says what the
// declaration means; a broken MUST is still a FAIL; a retry that
// completes is judged as usual.
func TestCrashMidRequestBeyondTheCap(t *testing.T) {
	crashAt := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(x history.Exchange, d time.Duration) history.Exchange {
		x.Start = crashAt.Add(d)
		return x
	}
	blocked := []history.Exchange{at(answer(2, "retry", 409, ""), time.Second), at(answer(3, "retry", 409, ""), 2*time.Second)}
	cases := []struct {
		name          string
		before, after check.Reading
		retries       []history.Exchange
		want          check.Status
		reason        string
	}{
		{name: "blocked, nothing executed", before: reading(0), after: reading(0), retries: blocked,
			want: check.WARN, reason: "a crashed request blocks its key for the declared 24h0m0s: the operation cannot complete or be retried for that long"},
		{name: "blocked over a resource left behind", before: reading(1, "r1"), after: reading(1, "r1"), retries: blocked,
			want: check.WARN, reason: "blocks its key"},
		{name: "blocked, but two resources", before: reading(2, "r1", "r2"), after: reading(2, "r1", "r2"), retries: blocked,
			want: check.FAIL, reason: "the crash left 2 resources"},
		{name: "the retry completes at once", before: reading(0), after: reading(1, "r1"),
			retries: []history.Exchange{at(answer(2, "retry", 201, "r1"), 50*time.Millisecond)}, want: check.PASS},
		{name: "the retry executes twice", before: reading(1, "r1"), after: reading(2, "r1", "r2"),
			retries: []history.Exchange{at(answer(2, "retry", 201, "r2"), 50*time.Millisecond)}, want: check.FAIL, reason: "counts 2 resources"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := scenarios.CrashMidRequest(scenarios.CrashRecord{
				Crashed: lost(1, "crashed"), Crash: history.Restart{Mode: "crash", At: crashAt},
				Before: c.before, Retries: c.retries, After: c.after, InFlight: 409, InProgressTimeout: 24 * time.Hour, Capped: true,
			})
			expectVerdict(t, got, "S5b", c.want, c.reason)
		})
	}
}
