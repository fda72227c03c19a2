package scenarios

import (
	"context"
	"fmt"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
)

// C6: core: the key outlives the process.
var C6 = check.Define(Check{
	ID: "C6", Group: ClientGroup, Level: check.MUST, Clause: "core (the key is persisted before the first send)",
	Title:    "should not create a second resource when killed mid-operation and started again with the same state",
	Why:      "A client killed mid-operation and started again with a new key creates a second resource: the first attempt's key died with the process.",
	Fix:      "Persist the key (and the payload) in the client's state before the first send, and on start resume an unfinished operation with its stored key.",
	Stimulus: "Kills the client command after its create reached the server, and starts it again with the same state.",
	Proof:    "The resources the server holds for the operation (one) and the keys of both runs' creates.",
	Run:      trialRun(killedMidOperation),
})

// C6: the client's process group is killed while its create is in flight
// (committed at the server, answer held by the lane), then the client is
// started again with the same state directory.
func killedMidOperation(ctx context.Context, t *trial) (check.Verdict, error) {
	if t.wt != nil {
		return killedInJob(ctx, t)
	}
	rec, err := killAndRestart(ctx, t)
	if err != nil {
		return check.Verdict{}, err
	}
	return OneResourceAfterRestart(rec), nil
}

// killAndRestart runs the program, kills it while its create is in
// flight, starts it again with the same state, and reads the trial.
func killAndRestart(ctx context.Context, t *trial) (ClientTrial, error) {
	remove, err := t.applyFault(harness.ResponseLoss{}, "on the client's lane while the first client runs")
	if err != nil {
		return ClientTrial{}, err
	}
	p, err := t.start(ctx)
	if err != nil {
		return ClientTrial{}, err
	}
	first, err := t.awaitCreate(ctx, p)
	if err != nil {
		t.finish(ctx, p, "first client")
		return ClientTrial{}, err
	}
	t.lost[first] = true
	p.Kill("SIGKILL to its process group while its create was in flight (C6)")
	t.finish(ctx, p, "first client")
	remove()
	again, err := t.start(ctx)
	if err != nil {
		return ClientTrial{}, err
	}
	t.finish(ctx, again, "restarted client")
	return t.judge(ctx)
}

// OneResourceAfterRestart judges C6: after the kill and the restart, the
// oracle counts one resource for the operation (against a real server,
// what the baseline run made).
func OneResourceAfterRestart(t ClientTrial) check.Verdict {
	if v := noCreates("C6", t); v != nil {
		return *v
	}
	if t.Resources != t.expected() {
		return check.Judge("C6", check.Violation{What: "resources for the operation after a kill and a restart", Expected: fmt.Sprint(t.expected()), Observed: fmt.Sprint(t.Resources), Seqs: seqs(t.creates()...)})
	}
	v := check.Judge("C6")
	// C6 judges resources, not keys: an API that refused the restarted
	// run's create (a natural key, a unique external id) kept the count.
	for _, c := range t.creates() {
		if c.Status >= 400 && c.Status < 500 {
			v.Reason = fmt.Sprintf("the API refused a create with %d (request %d): the API, not the program, kept the resources to %d", c.Status, c.Seq, t.expected())
			break
		}
	}
	return v
}
