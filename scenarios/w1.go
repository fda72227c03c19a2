package scenarios

import (
	"context"
	"fmt"

	"github.com/idemspec/idemspec/harness/check"
)

// W1: core: a step that creates a resource creates it once, however many
// times the job is interrupted, retried or started again.
var W1 = check.Define(Check{
	ID: "W1", Group: WorkflowGroup, Level: check.MUST, Clause: "core (each creating step of a job executes at most once)",
	Title:    "should execute each creating step of a job at most once across lost answers and a restart",
	Why:      "A job interrupted and retried step by step (an agent's loop, a queue worker) repeats the steps that create things unless each carries a key.",
	Fix:      "Give each creating step a key derived from the job and the step (the business operation, never the model's tool-call id), persisted before the step is sent.",
	Stimulus: "Runs the job against the reference server, loses the answers of its steps and restarts it mid-job.",
	Proof:    "The resources the server holds for each step of the job (at most one).",
	Timeout:  jobTimeout,
	Run:      trialRun(onceAcrossFaults),
})

// W1: every step's first answer is lost (the server ran it), then the
// program is started again, after its end, with the same state
// directory.
func onceAcrossFaults(ctx context.Context, t *trial) (check.Verdict, error) {
	if err := loseEachAnswer(ctx, t, true); err != nil {
		return check.Verdict{}, err
	}
	return endAndJudge(ctx, t, 1, OnceEach)
}

// OnceEach judges W1: the server's database holds at most one resource
// per creating step.
func OnceEach(jt JobTrial) check.Verdict {
	if vs := jt.needSends(); vs != nil {
		return check.Judge("W1", vs...)
	}
	var vs []check.Violation
	made := 0
	for _, s := range jt.Steps {
		if !s.Creates {
			continue
		}
		ids := jt.Created[s.Name]
		made += len(ids)
		if len(ids) > 1 {
			vs = append(vs, check.Violation{What: fmt.Sprintf("step %s executed more than once", s.Name), Expected: "at most 1 resource", Observed: fmt.Sprintf("%d: %v", len(ids), ids), Seqs: jobSeqs(jt.sends(s.Name)...)})
		}
	}
	if made == 0 && len(vs) == 0 {
		return check.Errored("W1", fmt.Errorf("no creating step executed, so W1 cannot be judged"))
	}
	return check.Judge("W1", vs...)
}
