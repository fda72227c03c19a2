package scenarios

import (
	"context"
	"fmt"
	"slices"

	"github.com/idemspec/idemspec/harness/agent"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/wire"
)

// An unmodified program that calls several operations is a job: its
// steps are the operations its baseline created, in the order it first
// called them, and the workflow checks hold, lose and kill at them
// through the interposer as they do at the reference server's holds.

// heldRequest is a request held on its way (at the reference server,
// upstream.Held, or at the interposer, wireHold) until idemspec lets it go.
type heldRequest interface {
	Arrived() <-chan struct{}
	// Release lets it go: delivered, or dropped (its answer lost after
	// the server ran it, or unrun, as the hold was armed).
	Release(deliver bool)
	// Index is the request's place in the trial's log (-1: none yet).
	Index() int
	// ClientGaveUp says the program stopped waiting while it was held.
	ClientGaveUp() bool
}

// stepOf is an operation's step name: its own, or "create" for a file's
// one unnamed operation (a step needs a name).
func stepOf(op string) string {
	if op == "" {
		return "create"
	}
	return op
}

// wireJob makes the job's steps from the baseline.
func (t *trial) wireJob() {
	var steps []agent.Step
	t.wt.stepOps = map[string]string{}
	for _, op := range t.wt.created() {
		keyed := slices.ContainsFunc(t.wt.baseline, func(x wire.Exchange) bool {
			return x.Kind == wire.Create && x.Operation == op && x.KeyFound
		})
		first := t.wt.baseline[slices.IndexFunc(t.wt.baseline, func(x wire.Exchange) bool { return x.Kind == wire.Create && x.Operation == op })]
		steps = append(steps, agent.Step{Name: stepOf(op), Method: first.Method, Path: first.Path, Keyed: keyed, Creates: true})
		t.wt.stepOps[stepOf(op)] = op
	}
	t.job.steps = steps
}

// wireHold is a hold at the interposer on a step's next create: on
// arrival, released to run with its answer dropped (after) or dropped
// unrun.
type wireHold struct {
	ip    *wire.Interposer
	armed *wire.Armed
	after bool
}

func (t *trial) holdOnWire(step string, after bool) heldRequest {
	op, ok := t.wt.stepOps[step]
	if !ok {
		panic("no step " + step)
	}
	armed := t.ce.Wire.Interposer.Arm(wire.Aim{Operation: op, Fault: wire.Fault{Hold: true, Drop: after}})
	return &wireHold{ip: t.ce.Wire.Interposer, armed: armed, after: after}
}

func (h *wireHold) Arrived() <-chan struct{} { return h.armed.Reached() }

func (h *wireHold) Release(deliver bool) {
	select {
	case <-h.armed.Reached():
	default:
		h.armed.Disarm() // nothing reached it
		return
	}
	h.armed.Release(deliver || h.after)
	// The step has run (or been dropped) before whatever comes next: a
	// restart meets the API as the kill left it.
	ctx, cancel := context.WithTimeout(context.Background(), settleLimit)
	defer cancel()
	seq := h.armed.First()
	h.ip.Record().Await(ctx, seq-1, func(x wire.Exchange) bool { return x.Seq == seq && x.Done })
}

func (h *wireHold) Index() int { return h.armed.First() - 1 }

func (h *wireHold) ClientGaveUp() bool {
	i := h.Index()
	xs := h.ip.Record().Since(i)
	return i >= 0 && len(xs) > 0 && xs[0].GaveUp
}

// judgeJobWire reads a job's trial from the wire: each request's run,
// step (its operation) and fate, and what each step created (the ids of
// the API's 2xx answers, dropped ones included).
func (t *trial) judgeJobWire(ctx context.Context) (JobTrial, error) {
	rec := t.ce.Wire.Interposer.Record()
	settle, cancel := context.WithTimeout(ctx, settleLimit)
	defer cancel()
	if err := rec.Settle(settle, t.offset); err != nil {
		return JobTrial{}, fmt.Errorf("the trial's requests did not end: %w", err)
	}
	jt := JobTrial{Exits: t.rec.Exits, Kills: t.job.kills, Unreachable: t.job.unreachable, Deadline: t.ce.Deadline, Slack: t.ce.Slack, Created: map[string][]string{}}
	for _, s := range t.job.steps {
		jt.Steps = append(jt.Steps, JobStep{Name: s.Name, Keyed: s.Keyed, Creates: s.Creates})
	}
	xs := rec.Since(t.offset)
	if err := t.judgeUndescribed(xs); err != nil {
		return JobTrial{}, err
	}
	for i, x := range xs {
		r := JobRequest{Seq: x.Seq, Run: t.runOf(t.offset + i), Key: x.Key, Status: x.Status, Method: x.Method, Path: x.Path,
			Lost: x.Forwarded && !x.Delivered, Dropped: !x.Forwarded && x.Fault != "" && x.Status == 0}
		switch x.Kind {
		case wire.Lookup:
			r.Kind = "lookup"
		case wire.Create:
			r.Kind, r.Step = "send", stepOf(x.Operation)
		default:
			r.Kind = "send" // a call the file does not describe: no step's
		}
		jt.Requests = append(jt.Requests, r)
	}
	jt.attributeLookups()
	for step, op := range t.wt.stepOps {
		jt.Created[step] = wire.CreatedIDs(xs, op)
	}
	t.jobRec = &jt
	return jt, nil
}

// notOverWire is the verdict of a workflow check that the interposer
// cannot drive yet.
func notOverWire(id, why string) check.Verdict {
	return check.Skip(id, "not judged with --target yet: "+why)
}
