package scenarios

import (
	"context"
	"fmt"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/retry/state"
)

// W2: core: a resumed job picks up where it stopped: what it finished
// stays finished, and what it had begun goes on under the same key.
var W2 = check.Define(Check{
	ID: "W2", Group: WorkflowGroup, Level: check.MUST, Clause: "core (a resumed job redoes no finished step and resends an unfinished one with its key)",
	Title:    "should resend an unfinished keyed step with its original key after a restart, and never a finished one",
	Why:      "A resumed job that redoes a finished step, or resends an unfinished one under a new key, duplicates work.",
	Fix:      "Record each step's key and result durably; on resume skip the finished steps and resend an unfinished one with its stored key.",
	Stimulus: "Kills the job mid-step and starts it again with the same state.",
	Proof:    "The keys of each step's requests before and after the restart.",
	Timeout:  jobTimeout,
	Run:      trialRun(resumedBetweenSteps),
})

// W2: the program is killed between the record and the link (the link's
// first request held on arrival, then dropped unrun), started again with
// the same state directory, and once more after its end.
// An unmodified program is killed as its spec's operation's first
// create arrives (held, dropped unrun).
func resumedBetweenSteps(ctx context.Context, t *trial) (check.Verdict, error) {
	step := stepLink
	if t.wt != nil {
		step = stepOf(t.wt.op)
	}
	if err := killAt(ctx, t, step, false); err != nil {
		return check.Verdict{}, err
	}
	return endAndJudge(ctx, t, 2, NoRedo)
}

// NoRedo judges W2. A step is finished in a run when it was answered
// 2xx (or a look-up answered 200) and the run went on to a later step
// or ended SUCCEEDED: no later run may send a finished keyed step again
// (an unkeyed step, an upload by path or a read, is safe to repeat, and
// repeating it is no defect). A keyed step sent in an earlier run and
// not finished must be resent with the key of its first send; and one
// whose outcome a run never heard (no 2xx, no look-up answered 200) must
// be taken up again, sent or looked up, by a later run before the job
// ends. A trial without a defect PASSes only on evidence that the rule
// was exercised (resumeEvidence): a run killed while a step's request
// was held, and that step sent again by a later run.
func NoRedo(jt JobTrial) check.Verdict {
	if vs := jt.needSends(); vs != nil {
		return check.Judge("W2", vs...)
	}
	if len(jt.Exits) < 2 {
		return check.Errored("W2", fmt.Errorf("the program ran once, so W2 cannot be judged"))
	}
	order := map[string]int{}
	for i, s := range jt.Steps {
		order[s.Name] = i
	}
	keyed := map[string]bool{}
	for _, s := range jt.keyed() {
		keyed[s.Name] = true
	}
	finished := map[string]int{} // step: the run that finished it
	first := map[string]JobRequest{}
	var vs []check.Violation
	redone := map[string]bool{}
	for run := 1; run <= len(jt.Exits); run++ {
		var answered []JobRequest // answered 2xx in this run, not yet known finished
		for _, r := range jt.Requests {
			if r.Run != run || r.Step == "" {
				continue
			}
			if r.Kind == "send" {
				if f := finished[r.Step]; keyed[r.Step] && f != 0 && f < run && !redone[fmt.Sprint(run, r.Step)] {
					redone[fmt.Sprint(run, r.Step)] = true
					vs = append(vs, check.Violation{What: fmt.Sprintf("run %d sent step %s again, finished in run %d", run, r.Step, f), Expected: "no send of a finished step", Observed: r.Method + " " + r.Path, Seqs: []int{r.Seq}})
				}
				if f, ok := first[r.Step]; !ok {
					first[r.Step] = r
				} else if keyed[r.Step] && finished[r.Step] == 0 && r.Run > f.Run && r.Key != f.Key {
					vs = append(vs, check.Violation{What: fmt.Sprintf("run %d resent the unfinished step %s with another key", run, r.Step), Expected: f.Key, Observed: r.Key, Seqs: []int{f.Seq, r.Seq}})
				}
				// A send of a later step shows the program knew the
				// earlier ones were done.
				for _, a := range answered {
					if order[a.Step] < order[r.Step] && finished[a.Step] == 0 {
						finished[a.Step] = run
					}
				}
			}
			if r.Status >= 200 && r.Status < 300 && !r.Lost && !r.Dropped && (r.Kind == "send" || r.Status == 200) {
				answered = append(answered, r)
			}
		}
		if state.State(jt.Exits[run-1].State) == state.Succeeded {
			for _, a := range answered {
				if finished[a.Step] == 0 {
					finished[a.Step] = run
				}
			}
		}
	}
	vs = append(vs, jt.abandoned()...)
	if len(vs) > 0 {
		return check.Judge("W2", vs...)
	}
	return jt.resumeEvidence()
}

// resumeEvidence is W2's verdict on a trial without a violation: PASS
// when each kill landed in its step's request (the killed run's log
// holds a send of the step) and a later run sent that step again, so
// the key of the resend was judged. No kill, or a kill whose request
// the log does not show in the killed run, is ERROR (the stimulus did
// not happen as aimed); a step looked up and never sent again is SKIP
// (the program did not resend, so its resend's key shows nothing).
func (jt JobTrial) resumeEvidence() check.Verdict {
	if len(jt.Kills) == 0 {
		return check.Errored("W2", fmt.Errorf("no run was killed inside a step (the program never reached the step the kill was aimed at), so no step was left unfinished to resume"))
	}
	for _, k := range jt.Kills {
		held, resent := false, false
		for _, r := range jt.Requests {
			if r.Kind != "send" || r.Step != k.Step {
				continue
			}
			held = held || r.Run == k.Run
			resent = resent || r.Run > k.Run
		}
		if !held {
			return check.Errored("W2", fmt.Errorf("run %d was killed while step %s's request was held, but the log shows no request of step %s in run %d: the log does not show the kill where it landed", k.Run, k.Step, k.Step, k.Run))
		}
		if !resent {
			return check.Skip("W2", fmt.Sprintf("no run after run %d (killed in step %s) sent step %s again, so the key of a resend could not be judged", k.Run, k.Step, k.Step))
		}
	}
	return check.Judge("W2")
}

// abandoned are the keyed steps a run left with an outcome it never
// heard, that no later run sent again or looked up: a job that never
// resumes its step neither finishes nor undoes it (a task message left
// unacknowledged in a queue, a workflow its executor never recovers).
func (jt JobTrial) abandoned() []check.Violation {
	var vs []check.Violation
	for _, s := range jt.keyed() {
		keys := map[string]bool{}
		var left *JobRequest // the step's last send, while its outcome is unheard
		for i, r := range jt.Requests {
			concerns := r.Step == s.Name || r.Kind == "lookup" && keys[r.Key]
			if !concerns {
				continue
			}
			if left != nil && r.Run > left.Run {
				left = nil // taken up again by a later run
			}
			if r.Kind == "send" {
				keys[r.Key] = true
				left = &jt.Requests[i]
			}
			if r.heard2xx() {
				left = nil
			}
		}
		if left == nil || left.Run >= len(jt.Exits) {
			continue // heard, taken up again, or left by the job's last run (W4 judges its end)
		}
		last := jt.Exits[len(jt.Exits)-1]
		vs = append(vs, check.Violation{
			What:     fmt.Sprintf("run %d left step %s with no answer heard, and no later run sent it again or looked it up before the job ended (run %d, the last, ended: %s)", left.Run, s.Name, len(jt.Exits), endOf(last)),
			Expected: fmt.Sprintf("a send of step %s with key %s, or a look-up of it, in run %d or later", s.Name, orNone(left.Key), left.Run+1),
			Observed: "none",
			Seqs:     []int{left.Seq},
		})
	}
	return vs
}

// heard2xx: the program heard a 2xx answer to a send, or a look-up that
// found the key.
func (r JobRequest) heard2xx() bool {
	return !r.Lost && !r.Dropped && (r.Kind == "send" && r.Status >= 200 && r.Status < 300 || r.Kind == "lookup" && r.Status == 200)
}
