package scenarios

import (
	"context"
	"fmt"
	"strings"

	"github.com/idemspec/idemspec/harness/check"
)

// W5: core: the state is durable before each send, so a crash right
// after a send leaves the key on record.
var W5 = check.Define(Check{
	ID: "W5", Group: WorkflowGroup, Level: check.MUST, Clause: "core (a job's state is durable before each send)",
	Title:    "should keep a step's key durably before sending it, so a restart after a crash mid-step resumes that step by its key",
	Why:      "A job that records a step's key only after sending it loses the key in a crash right after the send, and the restart sends the step again under a new key.",
	Fix:      "Write the step's key to durable state (flushed) before sending the step.",
	Stimulus: "Crashes the job right after a step is sent, then starts it again.",
	Proof:    "The step's key after the restart is the one sent before the crash, and the server holds one resource for it.",
	Timeout:  jobTimeout,
	Run:      trialRun(killedInsideSteps),
})

// W5: the program is killed inside the record (its request ran at the
// server, the answer held), started again and killed inside the link
// the same way, then started again to the end.
// An unmodified program is killed inside its spec's operation's first
// create only.
func killedInsideSteps(ctx context.Context, t *trial) (check.Verdict, error) {
	steps := []string{stepRecord, stepLink}
	if t.wt != nil {
		steps = []string{stepOf(t.wt.op)}
	}
	for _, step := range steps {
		if err := killAt(ctx, t, step, true); err != nil {
			return check.Verdict{}, err
		}
	}
	return endAndJudge(ctx, t, 1, ResumesByKey)
}

// ResumesByKey judges W5: after a kill inside a step, the first request
// of a later run that concerns the step (its look-up or its send)
// carries the key of the send the kill interrupted. A program that
// never comes back to the step shows nothing of the key it kept: that
// step was abandoned, which is W2's to judge, and W5 is then SKIP.
func ResumesByKey(jt JobTrial) check.Verdict {
	if vs := jt.needSends(); vs != nil {
		return check.Judge("W5", vs...)
	}
	var vs []check.Violation
	var abandoned []string
	judged := 0
	for _, k := range jt.Kills {
		if !k.Ran {
			continue
		}
		var held *JobRequest
		for i, r := range jt.Requests {
			if r.Run == k.Run && r.Kind == "send" && r.Step == k.Step {
				held = &jt.Requests[i]
			}
		}
		if held == nil {
			continue
		}
		var next *JobRequest
		for i, r := range jt.Requests {
			if r.Run > k.Run && r.Step == k.Step {
				next = &jt.Requests[i]
				break
			}
		}
		if next == nil {
			abandoned = append(abandoned, fmt.Sprintf("step %s, killed in run %d", k.Step, k.Run))
			continue
		}
		judged++
		if next.Key != held.Key {
			vs = append(vs, check.Violation{What: fmt.Sprintf("after a kill inside step %s, the restarted program did not know the key it had sent", k.Step), Expected: held.Key, Observed: next.Kind + " with key " + orNone(next.Key), Seqs: []int{held.Seq, next.Seq}})
		}
	}
	switch {
	case judged == 0 && len(abandoned) > 0:
		return check.Skip("W5", fmt.Sprintf("no later run came back to %s (a step abandoned: W2's rule), so no request shows which key the program kept", strings.Join(abandoned, ", or to ")))
	case judged == 0:
		return check.Errored("W5", fmt.Errorf("no run was killed inside a step, so W5 cannot be judged"))
	}
	return check.Judge("W5", vs...)
}
