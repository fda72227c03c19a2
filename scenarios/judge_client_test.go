package scenarios_test

import (
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/scenarios"
	"github.com/idemspec/idemspec/targets"
)

func create(seq int, key, hash string, status int, lost bool) check.ServerRequest {
	return check.ServerRequest{Seq: seq, Kind: "create", Key: key, Hash: hash, Status: status, Lost: lost}
}

func lookup(seq int, key string, status int) check.ServerRequest {
	return check.ServerRequest{Seq: seq, Kind: "lookup", Key: key, Status: status}
}

func exited(state string, elapsed time.Duration) check.ClientExit {
	return check.ClientExit{State: state, Elapsed: elapsed}
}

// Each case is a hand-made trial and the verdict its checker must give.
func TestClientCheckers(t *testing.T) {
	reconciled := []check.ServerRequest{create(1, "k", "h", 503, true), lookup(2, "k", 404), create(3, "k", "h", 201, false)}
	cases := []struct {
		name  string
		judge func(scenarios.ClientTrial) check.Verdict
		trial scenarios.ClientTrial
		want  check.Status
	}{
		{"C1 same key", scenarios.SameKey, scenarios.ClientTrial{Requests: reconciled}, check.PASS},
		{"C1 fresh key", scenarios.SameKey, scenarios.ClientTrial{Requests: []check.ServerRequest{create(1, "a", "h", 503, true), lookup(2, "a", 404), create(3, "b", "h", 201, false)}}, check.FAIL},
		{"C1 nothing sent", scenarios.SameKey, scenarios.ClientTrial{}, check.ERROR},
		{"C1 no key argument to judge", scenarios.SameKey, scenarios.ClientTrial{Requests: reconciled, NoKey: "the tool takes no key argument"}, check.SKIP},
		{"C6 the baseline's two effects", scenarios.OneResourceAfterRestart, scenarios.ClientTrial{Requests: reconciled, Resources: 2, Expected: 2}, check.PASS},
		{"C6 one more than the baseline", scenarios.OneResourceAfterRestart, scenarios.ClientTrial{Requests: reconciled, Resources: 3, Expected: 2}, check.FAIL},
		{"C2 same payload", scenarios.SamePayload, scenarios.ClientTrial{Requests: reconciled}, check.PASS},
		{"C2 new payload", scenarios.SamePayload, scenarios.ClientTrial{Requests: []check.ServerRequest{create(1, "k", "h1", 503, true), create(2, "k", "h2", 422, false)}}, check.FAIL},
		{"C3 within budget and deadline", scenarios.Bounded, scenarios.ClientTrial{Requests: reconciled, Budget: 3, Deadline: time.Second, Slack: time.Second, Exits: []check.ClientExit{exited("FAILED", 1500*time.Millisecond)}}, check.PASS},
		{"C3 over budget", scenarios.Bounded, scenarios.ClientTrial{Requests: reconciled, Budget: 1, Deadline: time.Second, Exits: []check.ClientExit{exited("FAILED", time.Millisecond)}}, check.FAIL},
		{"C3 killed", scenarios.Bounded, scenarios.ClientTrial{Requests: reconciled, Budget: 3, Deadline: time.Second, Exits: []check.ClientExit{{Killed: "deadline", Elapsed: 2 * time.Second}}}, check.FAIL},
		{"C3 late", scenarios.Bounded, scenarios.ClientTrial{Requests: reconciled, Budget: 3, Deadline: time.Second, Slack: time.Second, Exits: []check.ClientExit{exited("FAILED", 2500*time.Millisecond)}}, check.FAIL},
		{"C4 nothing sent", scenarios.NotFailedAfterCommit, scenarios.ClientTrial{Exits: []check.ClientExit{{Killed: "deadline"}}}, check.ERROR},
		{"C2 nothing sent", scenarios.SamePayload, scenarios.ClientTrial{}, check.ERROR},
		{"C3 nothing sent, killed", scenarios.Bounded, scenarios.ClientTrial{Budget: 3, Deadline: time.Second, Exits: []check.ClientExit{{Killed: "still running after 2s"}}}, check.ERROR},
		{"C6 nothing sent", scenarios.OneResourceAfterRestart, scenarios.ClientTrial{}, check.ERROR},
		{"C7 nothing sent", scenarios.NoRetryOfRefusal, scenarios.ClientTrial{}, check.ERROR},
		{"C4 succeeded", scenarios.NotFailedAfterCommit, scenarios.ClientTrial{Requests: reconciled, Resources: 1, Exits: []check.ClientExit{exited("SUCCEEDED", 0)}}, check.PASS},
		{"C4 unknown", scenarios.NotFailedAfterCommit, scenarios.ClientTrial{Requests: reconciled, Resources: 1, Exits: []check.ClientExit{exited("UNKNOWN_RESULT", 0)}}, check.PASS},
		{"C4 failed", scenarios.NotFailedAfterCommit, scenarios.ClientTrial{Requests: reconciled, Resources: 1, Exits: []check.ClientExit{exited("FAILED", 0)}}, check.FAIL},
		{"C4 no result", scenarios.NotFailedAfterCommit, scenarios.ClientTrial{Requests: reconciled, Resources: 1, Exits: []check.ClientExit{{Problem: "no JSON"}}}, check.FAIL},
		{"C4 never committed", scenarios.NotFailedAfterCommit, scenarios.ClientTrial{Requests: reconciled, Exits: []check.ClientExit{exited("FAILED", 0)}}, check.ERROR},
		{"C5 looked up first", scenarios.ReconcileFirst, scenarios.ClientTrial{Requests: reconciled}, check.PASS},
		{"C5 blind resubmit", scenarios.ReconcileFirst, scenarios.ClientTrial{Requests: []check.ServerRequest{create(1, "k", "h", 503, true), create(2, "k", "h", 201, false)}}, check.WARN},
		{"C5 blind resubmit with another key", scenarios.ReconcileFirst, scenarios.ClientTrial{Requests: []check.ServerRequest{create(1, "k", "h", 503, true), create(2, "x", "h", 201, false)}}, check.WARN},
		{"C5 nothing sent", scenarios.ReconcileFirst, scenarios.ClientTrial{}, check.SKIP},
		{"C5 resubmit after a known answer", scenarios.ReconcileFirst, scenarios.ClientTrial{Requests: []check.ServerRequest{create(1, "k", "h", 503, false), create(2, "k", "h", 201, false)}}, check.PASS},
		{"C5 look-up before the loss does not count", scenarios.ReconcileFirst, scenarios.ClientTrial{Requests: []check.ServerRequest{lookup(1, "k", 404), create(2, "k", "h", 503, true), create(3, "k", "h", 201, false)}}, check.WARN},
		{"C6 one resource", scenarios.OneResourceAfterRestart, scenarios.ClientTrial{Requests: reconciled, Resources: 1}, check.PASS},
		{"C6 two resources", scenarios.OneResourceAfterRestart, scenarios.ClientTrial{Requests: reconciled, Resources: 2}, check.FAIL},
		{"C6 as many as the baseline", scenarios.OneResourceAfterRestart, scenarios.ClientTrial{Requests: reconciled, Resources: 2, Expected: 2}, check.PASS},
		{"C6 more than the baseline", scenarios.OneResourceAfterRestart, scenarios.ClientTrial{Requests: reconciled, Resources: 3, Expected: 2}, check.FAIL},
		{"C6 refused by the API's natural key", scenarios.OneResourceAfterRestart, scenarios.ClientTrial{Requests: []check.ServerRequest{create(1, "a", "h", 201, true), create(2, "b", "h", 400, false)}, Resources: 1}, check.PASS},
		{"C4 unmodified program with no result", scenarios.NotFailedAfterCommit, scenarios.ClientTrial{Requests: reconciled, Resources: 1, Unmodified: true, Exits: []check.ClientExit{{Code: 0, Problem: "no output on stdout"}}}, check.SKIP},
		{"C4 unmodified program killed", scenarios.NotFailedAfterCommit, scenarios.ClientTrial{Requests: reconciled, Resources: 1, Unmodified: true, Exits: []check.ClientExit{{Killed: "deadline"}}}, check.FAIL},
		{"C7 stopped at 422", scenarios.NoRetryOfRefusal, scenarios.ClientTrial{Requests: []check.ServerRequest{create(1, "k", "h", 422, false)}}, check.PASS},
		{"C7 retried 422", scenarios.NoRetryOfRefusal, scenarios.ClientTrial{Requests: []check.ServerRequest{create(1, "k", "h", 422, false), create(2, "k", "h", 422, false)}}, check.FAIL},
		{"C7 retried 400", scenarios.NoRetryOfRefusal, scenarios.ClientTrial{Requests: []check.ServerRequest{create(1, "k", "h", 400, false), create(2, "k", "h", 201, false)}}, check.FAIL},
		{"C7 retried 503", scenarios.NoRetryOfRefusal, scenarios.ClientTrial{Requests: []check.ServerRequest{create(1, "k", "h", 503, false), create(2, "k", "h", 201, false)}}, check.PASS},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if v := tc.judge(tc.trial); v.Status != tc.want {
				t.Errorf("got %s (%+v), want %s", v.Status, v.Violations, tc.want)
			}
		})
	}
}

// C5 and W3 ask for a look-up before a resend: against an API that
// offers none they are skipped, with the reason.
func TestLookupChecksNeedALookup(t *testing.T) {
	for _, c := range []*scenarios.Check{scenarios.C5, scenarios.W3} {
		if why := c.Needs(&targets.Target{}); !strings.Contains(why, "no look-up") {
			t.Errorf("%s against an API without a look-up: skip reason %q", c.ID, why)
		}
		if why := c.Needs(&targets.Target{LookupPath: "/keys/{{.Key}}"}); why != "" {
			t.Errorf("%s against an API with a look-up: skip reason %q", c.ID, why)
		}
	}
}

// C6 judges resources, not keys: an API that refused the restarted
// run's create under a natural key kept one resource, a PASS that says
// who saved it.
func TestC6NamesTheAPIThatKeptTheCount(t *testing.T) {
	v := scenarios.OneResourceAfterRestart(scenarios.ClientTrial{Requests: []check.ServerRequest{create(1, "a", "h", 201, true), create(2, "b", "h", 400, false)}, Resources: 1})
	if v.Status != check.PASS || !strings.Contains(v.Reason, "the API, not the program") {
		t.Errorf("got %s %q", v.Status, v.Reason)
	}
}

// C5's WARN says what the resend carried: the same key, another, or
// (a tool that takes no key) none, never "the same key" of a key that
// was never there.
func TestReconcileFirstSaysWhatTheResendCarried(t *testing.T) {
	blind := []check.ServerRequest{create(1, "", "h", 503, true), create(2, "", "h", 201, false)}
	for _, c := range []struct {
		name  string
		trial scenarios.ClientTrial
		want  string
	}{
		{"same key", scenarios.ClientTrial{Requests: []check.ServerRequest{create(1, "k", "h", 503, true), create(2, "k", "h", 201, false)}}, "with the same key without looking it up first"},
		{"no key", scenarios.ClientTrial{Requests: blind, NoKey: "create_entities takes no key argument"}, "without looking it up first (the operation takes no key"},
	} {
		v := scenarios.ReconcileFirst(c.trial)
		if v.Status != check.WARN || !strings.Contains(v.Reason, c.want) {
			t.Errorf("%s: %s %q, want WARN saying %q", c.name, v.Status, v.Reason, c.want)
		}
		if c.trial.NoKey != "" && strings.Contains(v.Reason, "same key") {
			t.Errorf("%s: %q speaks of a key the operation does not take", c.name, v.Reason)
		}
	}
}
