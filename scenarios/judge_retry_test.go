package scenarios_test

import (
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/scenarios"
)

// retryRun is S6 as the reference server passes it: one operation whose
// three creates were blackholed (a look-up between each found nothing),
// then a resumed run that found nothing and created the resource once.
func retryRun() scenarios.RetryRecord {
	const key = "k1"
	create := func(seq int, step string, out history.Outcome, status int, id string) history.Exchange {
		return history.Exchange{Seq: seq, Step: step, Key: key, Lane: "faulty", Outcome: out, Status: status, ResourceID: id}
	}
	lookup := func(seq int, status int) history.Exchange {
		return history.Exchange{Seq: seq, Step: "look-up", Lane: "clean", Outcome: history.OK, Status: status}
	}
	h := []history.Exchange{
		create(1, "create 1", history.MaybeApplied, 0, ""), lookup(2, 404),
		create(3, "create 2", history.MaybeApplied, 0, ""), lookup(4, 404),
		create(5, "create 3", history.MaybeApplied, 0, ""), lookup(6, 404),
		lookup(7, 404), create(8, "resumed create 1", history.OK, 201, "r1"),
	}
	return scenarios.RetryRecord{
		History:   h,
		Reconcile: "lookup",
		Ops: []scenarios.RetryOp{{
			Name: "blackhole", Fault: "blackhole", Key: key,
			Faulted: scenarios.ClientRun{Phase: "under the fault", State: "UNKNOWN_RESULT", Reason: "attempt budget (3) spent",
				Budget: 3, Deadline: 5 * time.Second, Elapsed: time.Second, Creates: []int{1, 3, 5}, Lookups: []int{2, 4, 6}},
			Resumed: scenarios.ClientRun{Phase: "resumed", State: "SUCCEEDED", Reason: "created", ResourceID: "r1",
				Budget: 3, Deadline: 30 * time.Second, Elapsed: 20 * time.Millisecond, Creates: []int{8}, Lookups: []int{7}},
			Reading: reading(1, "r1"),
		}},
	}
}

func TestBoundedRetries(t *testing.T) {
	tests := []struct {
		name   string
		change func(*scenarios.RetryRecord)
		want   check.Status
		reason string
	}{
		{name: "bounded, unknown, reconciled, one resource", change: func(*scenarios.RetryRecord) {}, want: check.PASS},
		{
			name: "reconciled by the oracle", want: check.PASS,
			change: func(r *scenarios.RetryRecord) { r.Reconcile = "oracle" },
		},
		{
			name: "no way to reconcile is a warning", want: check.WARN, reason: "offers no way to reconcile",
			change: func(r *scenarios.RetryRecord) {
				r.Reconcile = "none"
				r.Ops[0].Faulted.Lookups, r.Ops[0].Resumed.Lookups = nil, nil
			},
		},
		{
			name: "no way to reconcile and two resources is a failure", want: check.FAIL, reason: "counts 2 resources",
			change: func(r *scenarios.RetryRecord) {
				r.Reconcile = "none"
				r.Ops[0].Reading = reading(2, "r0", "r1")
			},
		},
		{
			name: "a final failure under a fault", want: check.FAIL, reason: "blackhole: the client reported a final failure",
			change: func(r *scenarios.RetryRecord) {
				r.Ops[0].Faulted.State, r.Ops[0].Faulted.Reason = "FAILED_FINAL", "refused (400)"
			},
		},
		{
			name: "success under a persistent fault cannot be right", want: check.FAIL, reason: "did not end with an unknown outcome",
			change: func(r *scenarios.RetryRecord) { r.Ops[0].Faulted.State = "SUCCEEDED" },
		},
		{
			name: "over budget: idemspec's own client, not the target", want: check.ERROR, reason: "under the fault idemspec's own client sent 3 create requests, more than its budget of 2",
			change: func(r *scenarios.RetryRecord) { r.Ops[0].Faulted.Budget = 2 },
		},
		{
			// A busy machine, not the target: S6 judges the effects,
			// and the evidence's table shows the time against the
			// deadline.
			name: "past the deadline", want: check.PASS,
			change: func(r *scenarios.RetryRecord) { r.Ops[0].Faulted.Elapsed = 6 * time.Second },
		},
		{
			name: "a fresh key on a retry", want: check.FAIL, reason: "create 2: an attempt carried another key",
			change: func(r *scenarios.RetryRecord) { r.History[2].Key = "k2" },
		},
		{
			name: "an attempt without a key", want: check.FAIL, reason: `observed ""`,
			change: func(r *scenarios.RetryRecord) { r.History[7].Key = "" },
		},
		{
			name: "the resumed client did not succeed", want: check.FAIL, reason: "the resumed client did not succeed",
			change: func(r *scenarios.RetryRecord) {
				r.Ops[0].Resumed.State, r.Ops[0].Resumed.ResourceID = "UNKNOWN_RESULT", ""
			},
		},
		{
			name: "two resources: the lookup did not know the key", want: check.FAIL, reason: "the oracle (list) counts 2 resources",
			change: func(r *scenarios.RetryRecord) { r.Ops[0].Reading = reading(2, "r0", "r1") },
		},
		{
			name: "the answer names another resource than the oracle", want: check.FAIL, reason: "the answers name a resource the oracle does not list",
			change: func(r *scenarios.RetryRecord) { r.Ops[0].Reading = reading(1, "r9") },
		},
		{
			name: "resubmitted before reconciling", want: check.FAIL, reason: "resubmitted before it reconciled",
			change: func(r *scenarios.RetryRecord) {
				r.History[6].Seq, r.History[7].Seq = 8, 7
				r.Ops[0].Resumed.Creates, r.Ops[0].Resumed.Lookups = []int{7}, []int{8}
			},
		},
		{
			name: "the target unreachable when resumed", want: check.ERROR, reason: "could not be reached",
			change: func(r *scenarios.RetryRecord) {
				for i := 6; i < 8; i++ {
					r.History[i].Outcome, r.History[i].Status, r.History[i].Error = history.Failed, 0, "connection refused"
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := retryRun()
			tt.change(&rec)
			expectVerdict(t, scenarios.BoundedRetries(rec), scenarios.S6.ID, tt.want, tt.reason)
		})
	}
}
