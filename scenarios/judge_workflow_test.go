package scenarios_test

import (
	"strings"
	"testing"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/scenarios"
)

// The workflow judges on hand-made histories: the publishing job's four
// steps, requests numbered as they come.

var jobSteps = []scenarios.JobStep{{Name: "upload"}, {Name: "record", Keyed: true, Creates: true}, {Name: "link", Keyed: true, Creates: true}, {Name: "read"}}

// jobLog numbers requests and their runs.
type jobLog struct{ rs []scenarios.JobRequest }

func (h *jobLog) add(run int, step, kind, key string, status int, how string) *jobLog {
	h.rs = append(h.rs, scenarios.JobRequest{Seq: len(h.rs) + 1, Run: run, Step: step, Kind: kind, Key: key, Status: status, Lost: how == "lost", Dropped: how == "dropped"})
	return h
}
func (h *jobLog) send(run int, step, key string, status int, how string) *jobLog {
	return h.add(run, step, "send", key, status, how)
}
func (h *jobLog) look(run int, step, key string, status int) *jobLog {
	return h.add(run, step, "lookup", key, status, "")
}

func ended(states ...string) []check.ClientExit {
	var out []check.ClientExit
	for _, s := range states {
		if s == "killed" {
			out = append(out, check.ClientExit{Killed: "SIGKILL"})
			continue
		}
		out = append(out, check.ClientExit{State: s})
	}
	return out
}

func succeeded(ids map[string]string) check.ClientExit {
	return check.ClientExit{State: "SUCCEEDED", IDs: ids}
}

// killedAtLink is W2's kill: run 1, its link's request held on arrival.
var killedAtLink = []scenarios.JobKill{{Run: 1, Step: "link"}}

func TestWorkflowCheckers(t *testing.T) {
	allIDs := map[string]string{"upload": "/u", "record": "r1", "link": "l1", "read": "l1"}
	created := map[string][]string{"record": {"r1"}, "link": {"l1"}}
	// The reference's W2 trial: killed when the link arrived, resumed
	// by a look-up and a resend with the key, then run once more.
	resumed := (&jobLog{}).send(1, "upload", "", 201, "").send(1, "record", "kr", 201, "").send(1, "link", "kl", 0, "dropped").
		look(2, "link", "kl", 404).send(2, "link", "kl", 201, "").send(2, "read", "", 200, "")
	// W5's: killed inside the record, resumed by its key.
	inside := (&jobLog{}).send(1, "upload", "", 201, "").send(1, "record", "kr", 201, "lost").
		look(2, "record", "kr", 200).send(2, "link", "kl", 201, "").send(2, "read", "", 200, "")
	cases := []struct {
		name  string
		judge func(scenarios.JobTrial) check.Verdict
		trial scenarios.JobTrial
		want  check.Status
	}{
		{"W1 one of each", scenarios.OnceEach, scenarios.JobTrial{Steps: jobSteps, Requests: resumed.rs, Created: created}, check.PASS},
		{"W1 two records", scenarios.OnceEach, scenarios.JobTrial{Steps: jobSteps, Requests: resumed.rs, Created: map[string][]string{"record": {"r1", "r2"}, "link": {"l1"}}}, check.FAIL},
		{"W1 nothing sent", scenarios.OnceEach, scenarios.JobTrial{Steps: jobSteps}, check.FAIL},
		{"W1 nothing created", scenarios.OnceEach, scenarios.JobTrial{Steps: jobSteps, Requests: (&jobLog{}).send(1, "upload", "", 201, "").rs}, check.ERROR},

		{"W2 resumed where it stopped", scenarios.NoRedo, scenarios.JobTrial{Steps: jobSteps, Requests: resumed.rs, Kills: killedAtLink, Exits: ended("killed", "SUCCEEDED", "SUCCEEDED")}, check.PASS},
		// The evidence: a kill that landed in a step's request, and that
		// step sent again by a later run. Without it, no PASS.
		{"W2 no kill landed", scenarios.NoRedo, scenarios.JobTrial{Steps: jobSteps, Exits: ended("SUCCEEDED", "SUCCEEDED"),
			Requests: (&jobLog{}).send(1, "upload", "", 201, "").send(1, "record", "kr", 201, "").send(1, "link", "kl", 201, "").send(1, "read", "", 200, "").rs}, check.ERROR},
		// The killed run's dropped request charged to the run after it (a
		// drop logged after the next run began): the send with a fresh
		// key then looks like the run's first, not a resend.
		{"W2 the killed request in the run after the kill", scenarios.NoRedo, scenarios.JobTrial{Steps: jobSteps, Kills: killedAtLink, Exits: ended("killed", "SUCCEEDED", "SUCCEEDED"),
			Requests: (&jobLog{}).send(1, "upload", "", 201, "").send(1, "record", "kr", 201, "").send(2, "link", "kl", 0, "dropped").
				look(2, "link", "kl", 404).send(2, "link", "kx", 201, "").send(2, "read", "", 200, "").rs}, check.ERROR},
		{"W2 finished step redone", scenarios.NoRedo, scenarios.JobTrial{Steps: jobSteps, Kills: killedAtLink, Exits: ended("killed", "SUCCEEDED"),
			Requests: (&jobLog{}).send(1, "upload", "", 201, "").send(1, "record", "kr", 201, "").send(1, "link", "kl", 0, "dropped").
				send(2, "upload", "", 200, "").send(2, "record", "kr", 201, "").look(2, "link", "kl", 404).send(2, "link", "kl", 201, "").rs}, check.FAIL},
		{"W2 unfinished step with a new key", scenarios.NoRedo, scenarios.JobTrial{Steps: jobSteps, Kills: killedAtLink, Exits: ended("killed", "SUCCEEDED"),
			Requests: (&jobLog{}).send(1, "upload", "", 201, "").send(1, "record", "kr", 201, "").send(1, "link", "kl", 0, "dropped").
				look(2, "link", "kl", 404).send(2, "link", "kx", 201, "").rs}, check.FAIL},
		{"W2 a run after the end sends nothing", scenarios.NoRedo, scenarios.JobTrial{Steps: jobSteps, Kills: killedAtLink, Exits: ended("killed", "SUCCEEDED", "SUCCEEDED"),
			Requests: (&jobLog{}).send(1, "upload", "", 201, "").send(1, "record", "kr", 201, "").send(1, "link", "kl", 0, "dropped").send(2, "link", "kl", 201, "").send(2, "read", "", 200, "").rs}, check.PASS},
		{"W2 a run after the end resends the link", scenarios.NoRedo, scenarios.JobTrial{Steps: jobSteps, Exits: ended("SUCCEEDED", "SUCCEEDED"),
			Requests: (&jobLog{}).send(1, "upload", "", 201, "").send(1, "record", "kr", 201, "").send(1, "link", "kl", 201, "").send(1, "read", "", 200, "").send(2, "link", "kl", 201, "").rs}, check.FAIL},
		// An upload by path and a read are safe to repeat.
		{"W2 a run after the end reads again", scenarios.NoRedo, scenarios.JobTrial{Steps: jobSteps, Kills: killedAtLink, Exits: ended("killed", "SUCCEEDED", "SUCCEEDED"),
			Requests: (&jobLog{}).send(1, "upload", "", 201, "").send(1, "record", "kr", 201, "").send(1, "link", "kl", 0, "dropped").send(2, "link", "kl", 201, "").send(2, "read", "", 200, "").send(3, "upload", "", 200, "").send(3, "read", "", 200, "").rs}, check.PASS},
		// An answer lost is not a step finished: resending it is not a redo.
		{"W2 a lost answer is not finished", scenarios.NoRedo, scenarios.JobTrial{Steps: jobSteps, Kills: []scenarios.JobKill{{Run: 1, Step: "record", Ran: true}}, Exits: ended("killed", "SUCCEEDED"),
			Requests: (&jobLog{}).send(1, "upload", "", 201, "").send(1, "record", "kr", 201, "lost").send(2, "record", "kr", 201, "").send(2, "link", "kl", 201, "").send(2, "read", "", 200, "").rs}, check.PASS},
		// The step a kill interrupted, never taken up again: a task
		// message left unacknowledged, a workflow nobody recovers.
		{"W2 unfinished step abandoned", scenarios.NoRedo, scenarios.JobTrial{Steps: jobSteps, Kills: killedAtLink, Exits: ended("killed", "UNKNOWN_RESULT", "UNKNOWN_RESULT"),
			Requests: (&jobLog{}).send(1, "upload", "", 201, "").send(1, "record", "kr", 201, "").send(1, "link", "kl", 0, "dropped").rs}, check.FAIL},
		// Taken up by a look-up, so not abandoned; but never resent, so
		// the key of a resend was never seen.
		{"W2 unfinished step only looked up", scenarios.NoRedo, scenarios.JobTrial{Steps: jobSteps, Kills: killedAtLink, Exits: ended("killed", "UNKNOWN_RESULT"),
			Requests: (&jobLog{}).send(1, "upload", "", 201, "").send(1, "record", "kr", 201, "").send(1, "link", "kl", 0, "dropped").look(2, "link", "kl", 404).rs}, check.SKIP},
		{"W2 a send taken up in the same run is not abandoned", scenarios.NoRedo, scenarios.JobTrial{Steps: jobSteps, Kills: []scenarios.JobKill{{Run: 1, Step: "link", Ran: true}}, Exits: ended("killed", "SUCCEEDED"),
			Requests: (&jobLog{}).send(1, "record", "kr", 0, "dropped").send(1, "record", "kr", 201, "").send(1, "link", "kl", 201, "lost").send(2, "link", "kl", 201, "").rs}, check.PASS},
		{"W2 the last run's unheard send is not abandoned", scenarios.NoRedo, scenarios.JobTrial{Steps: jobSteps, Kills: killedAtLink, Exits: ended("killed", "killed"),
			Requests: (&jobLog{}).send(1, "record", "kr", 201, "").send(1, "link", "kl", 0, "dropped").send(2, "link", "kl", 0, "dropped").rs}, check.PASS},
		{"W2 ran once", scenarios.NoRedo, scenarios.JobTrial{Steps: jobSteps, Requests: resumed.rs, Exits: ended("SUCCEEDED")}, check.ERROR},

		{"W3 looked up, then resent", scenarios.LookupBeforeResend, scenarios.JobTrial{Steps: jobSteps,
			Requests: (&jobLog{}).send(1, "record", "kr", 0, "dropped").look(1, "record", "kr", 404).send(1, "record", "kr", 201, "").rs}, check.PASS},
		{"W3 resent blind with a new key", scenarios.LookupBeforeResend, scenarios.JobTrial{Steps: jobSteps,
			Requests: (&jobLog{}).send(1, "record", "kr", 0, "dropped").send(1, "upload", "", 200, "").send(1, "record", "kx", 201, "").rs}, check.WARN},
		{"W3 a look-up of another key does not count", scenarios.LookupBeforeResend, scenarios.JobTrial{Steps: jobSteps,
			Requests: (&jobLog{}).send(1, "record", "kr", 0, "dropped").look(1, "record", "kx", 404).send(1, "record", "kx", 201, "").rs}, check.WARN},
		{"W3 found by the look-up, never resent", scenarios.LookupBeforeResend, scenarios.JobTrial{Steps: jobSteps,
			Requests: (&jobLog{}).send(1, "record", "kr", 201, "lost").look(1, "record", "kr", 200).rs}, check.PASS},
		{"W3 resent blind with its key", scenarios.LookupBeforeResend, scenarios.JobTrial{Steps: jobSteps,
			Requests: (&jobLog{}).send(1, "record", "kr", 0, "dropped").send(1, "record", "kr", 201, "").rs}, check.WARN},
		{"W3 nothing sent", scenarios.LookupBeforeResend, scenarios.JobTrial{Steps: jobSteps}, check.SKIP},
		{"W3 nothing lost", scenarios.LookupBeforeResend, scenarios.JobTrial{Steps: jobSteps, Requests: (&jobLog{}).send(1, "record", "kr", 201, "").rs}, check.ERROR},

		{"W4 finished with every id", func(jt scenarios.JobTrial) check.Verdict { return scenarios.EndsKnown(jt) },
			scenarios.JobTrial{Steps: jobSteps, Requests: resumed.rs, Created: created, Exits: []check.ClientExit{succeeded(allIDs)}}, check.PASS},
		{"W4 finished without the link's id", func(jt scenarios.JobTrial) check.Verdict { return scenarios.EndsKnown(jt) },
			scenarios.JobTrial{Steps: jobSteps, Requests: resumed.rs, Created: created, Exits: []check.ClientExit{succeeded(map[string]string{"upload": "/u", "record": "r1", "read": "l1"})}}, check.FAIL},
		{"W4 an id the step did not make", func(jt scenarios.JobTrial) check.Verdict { return scenarios.EndsKnown(jt) },
			scenarios.JobTrial{Steps: jobSteps, Requests: resumed.rs, Created: created, Exits: []check.ClientExit{succeeded(map[string]string{"upload": "/u", "record": "r9", "link": "l1", "read": "l1"})}}, check.FAIL},
		{"W4 could finish, gave up", func(jt scenarios.JobTrial) check.Verdict { return scenarios.EndsKnown(jt) },
			scenarios.JobTrial{Steps: jobSteps, Requests: resumed.rs, Created: created, Exits: ended("UNKNOWN_RESULT")}, check.FAIL},
		{"W4 unreachable: unknown", func(jt scenarios.JobTrial) check.Verdict { return scenarios.EndsKnown(jt) },
			scenarios.JobTrial{Steps: jobSteps, Requests: inside.rs[:2], Unreachable: true, Exits: ended("UNKNOWN_RESULT")}, check.PASS},
		{"W4 unreachable: failed", func(jt scenarios.JobTrial) check.Verdict { return scenarios.EndsKnown(jt) },
			scenarios.JobTrial{Steps: jobSteps, Requests: inside.rs[:2], Unreachable: true, Exits: ended("FAILED")}, check.FAIL},
		{"W4 unreachable: killed at the deadline", func(jt scenarios.JobTrial) check.Verdict { return scenarios.EndsKnown(jt) },
			scenarios.JobTrial{Steps: jobSteps, Requests: inside.rs[:2], Unreachable: true, Exits: ended("killed")}, check.FAIL},
		{"W4 unreachable before anything ran: failed is right", func(jt scenarios.JobTrial) check.Verdict { return scenarios.EndsKnown(jt) },
			scenarios.JobTrial{Steps: jobSteps, Requests: (&jobLog{}).send(1, "upload", "", 0, "dropped").rs, Unreachable: true, Exits: ended("FAILED")}, check.PASS},

		{"W5 resumed by its key", scenarios.ResumesByKey, scenarios.JobTrial{Steps: jobSteps, Requests: inside.rs, Kills: []scenarios.JobKill{{Run: 1, Step: "record", Ran: true}}}, check.PASS},
		{"W5 restarted with a new key", scenarios.ResumesByKey, scenarios.JobTrial{Steps: jobSteps, Kills: []scenarios.JobKill{{Run: 1, Step: "record", Ran: true}},
			Requests: (&jobLog{}).send(1, "upload", "", 201, "").send(1, "record", "kr", 201, "lost").send(2, "record", "kx", 201, "").rs}, check.FAIL},
		{"W5 never resumed", scenarios.ResumesByKey, scenarios.JobTrial{Steps: jobSteps, Kills: []scenarios.JobKill{{Run: 1, Step: "record", Ran: true}},
			Requests: (&jobLog{}).send(1, "upload", "", 201, "").send(1, "record", "kr", 201, "lost").rs}, check.SKIP},
		{"W5 never killed inside a step", scenarios.ResumesByKey, scenarios.JobTrial{Steps: jobSteps, Requests: resumed.rs, Kills: []scenarios.JobKill{{Run: 1, Step: "link"}}}, check.ERROR},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if v := tc.judge(tc.trial); v.Status != tc.want {
				t.Errorf("%s: %s (%s), want %s", v.Check, v.Status, v.Reason, tc.want)
			}
		})
	}
}

// W4 judges each of its jobs: one that fails is enough.
func TestEndsKnownJudgesEveryJob(t *testing.T) {
	ok := scenarios.JobTrial{Steps: jobSteps, Requests: (&jobLog{}).send(1, "upload", "", 201, "").rs, Unreachable: true, Exits: ended("UNKNOWN_RESULT")}
	bad := ok
	bad.Exits = ended("FAILED")
	if v := scenarios.EndsKnown(ok, bad); v.Status != check.FAIL {
		t.Errorf("%s (%s), want FAIL for the second job", v.Status, v.Reason)
	}
	if v := scenarios.EndsKnown(ok, ok); v.Status != check.PASS {
		t.Errorf("%s (%s), want PASS", v.Status, v.Reason)
	}
}

// A run killed without a result is said in separate words: why it was
// killed, and what its output lacked.
func TestEndsKnownSaysHowTheRunEnded(t *testing.T) {
	jt := scenarios.JobTrial{Steps: jobSteps, Requests: (&jobLog{}).send(1, "upload", "", 201, "").rs,
		Exits: []check.ClientExit{{Killed: "still running after 5s", Problem: "no output on stdout", Code: -1}}}
	v := scenarios.EndsKnown(jt)
	if v.Status != check.FAIL || !strings.Contains(v.Reason, "killed: still running after 5s; no output on stdout") {
		t.Errorf("%s: %q", v.Status, v.Reason)
	}
}
