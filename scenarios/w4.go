package scenarios

import (
	"context"
	"fmt"
	"slices"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/retry/state"
)

// W4: core: a timeout proves only that the answer did not arrive; a job
// ends known where it can, and unknown, never failed, where a step may
// have applied.
var W4 = check.Define(Check{
	ID: "W4", Group: WorkflowGroup, Level: check.MUST, Clause: "core (a job ends SUCCEEDED, or UNKNOWN_RESULT once a step may have applied; never FAILED then)",
	Title:    "should end a job SUCCEEDED with every step done, or UNKNOWN_RESULT, never FAILED, once a step may have applied",
	Why:      "A job that reports FAILED once a step may have applied makes its caller start it over and duplicate what it did.",
	Fix:      "End a job SUCCEEDED when every step is done and UNKNOWN_RESULT once a step may have applied unconfirmed; FAILED only when nothing applied.",
	Stimulus: "Loses answers of the job's steps until it stops.",
	Proof:    "The job's end state and what the server holds for it.",
	Timeout:  jobTimeout,
	Run:      trialRun(endsKnown),
})

// W4: two jobs. In the first every step's first answer is lost and the
// job can finish; in the second the record's answer is lost and the
// server stays unreachable past the program's deadline.
func endsKnown(ctx context.Context, t *trial) (check.Verdict, error) {
	if t.wt != nil {
		return notOverWire("W4", "its second job needs the API unreachable past the program's deadline, which the interposer does not aim yet"), nil
	}
	if err := loseEachAnswer(ctx, t, true); err != nil {
		return check.Verdict{}, err
	}
	done, err := t.judgeJob(ctx)
	if err != nil {
		return check.Verdict{}, err
	}
	u, err := t.sibling("W4")
	if err != nil {
		return check.Verdict{}, err
	}
	if err := unreachableAfter(ctx, u, stepRecord); err != nil {
		return check.Verdict{}, err
	}
	cut, err := u.judgeJob(ctx)
	if err != nil {
		return check.Verdict{}, err
	}
	t.ev.Tables = append(t.ev.Tables, cut.table())
	return EndsKnown(done, cut), nil
}

// EndsKnown judges W4 on each job's last run: with the server reachable
// to the end, SUCCEEDED holding every step's id (the ids of what the
// creating steps made); with the server unreachable, an end of its own
// within the deadline in UNKNOWN_RESULT, or FAILED only if no step
// reached the server.
func EndsKnown(jobs ...JobTrial) check.Verdict {
	var vs []check.Violation
	for n, jt := range jobs {
		job := fmt.Sprintf("job %d", n+1)
		if v := jt.needSends(); v != nil {
			vs = append(vs, v...)
			continue
		}
		last := jt.Exits[len(jt.Exits)-1]
		end := state.State(last.State)
		switch {
		case last.Killed != "" || end == "":
			vs = append(vs, check.Violation{What: job + ": the program did not end with a result", Expected: "an end state within its deadline", Observed: endOf(last)})
		case !jt.Unreachable && end != state.Succeeded:
			vs = append(vs, check.Violation{What: job + ": the job could finish and did not end SUCCEEDED", Expected: string(state.Succeeded), Observed: last.State})
		case !jt.Unreachable:
			for _, s := range jt.Steps {
				id := last.IDs[s.Name]
				switch {
				case id == "":
					vs = append(vs, check.Violation{What: fmt.Sprintf("%s: SUCCEEDED without the id of step %s", job, s.Name), Expected: "an id", Observed: "none"})
				case s.Creates && !slices.Contains(jt.Created[s.Name], id):
					vs = append(vs, check.Violation{What: fmt.Sprintf("%s: step %s's id is not what the step made", job, s.Name), Expected: fmt.Sprint(jt.Created[s.Name]), Observed: id})
				}
			}
		case end == state.Failed && jt.reachedServer():
			vs = append(vs, check.Violation{What: job + ": reported FAILED after a step reached the server", Expected: string(state.UnknownResult), Observed: last.State})
		case end == state.Succeeded:
			vs = append(vs, check.Violation{What: job + ": reported SUCCEEDED while the server was unreachable before the job's end", Expected: string(state.UnknownResult), Observed: last.State})
		}
	}
	return check.Judge("W4", vs...)
}

// reachedServer reports a send the server received (ran, whatever
// became of its answer).
func (jt JobTrial) reachedServer() bool {
	for _, r := range jt.Requests {
		if r.Kind == "send" && !r.Dropped {
			return true
		}
	}
	return false
}
