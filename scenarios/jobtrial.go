package scenarios

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/agent"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/upstream"
	"github.com/idemspec/idemspec/harness/wire"
	"github.com/idemspec/idemspec/targets"
)

// The workflow shape's trials (idemspec client --workflow): the program
// is given a job of four steps on the reference server, a publishing
// agent's: upload a cover (PUT, idempotent by its path), create the
// record (keyed), attach it to a campaign (keyed, an action on the
// record), read the link back. Each W check aims its faults at steps
// through the server's holds (upstream.Hold), so a fault lands on the step
// it means whatever the timing, and judges the log, the program's exits
// and the server's database.

// MaxJobRun bounds one run of a job's program (its deadline plus the
// slack): a W check runs it at most three times, within jobTimeout.
const MaxJobRun = 2 * time.Minute

// jobTimeout bounds a W check's spec.
const jobTimeout = 4 * MaxJobRun

// The job's steps.
const (
	stepUpload = "upload"
	stepRecord = "record"
	stepLink   = "link"
	stepRead   = "read"
)

// jobSteps is the job for marker, with the key where the server takes
// it (in the body: a "{{.Key}}" slot in each keyed step's body).
func jobSteps(e *harness.Env, marker string) ([]agent.Step, error) {
	record, err := e.Body(marker, "100")
	if err != nil {
		return nil, err
	}
	link := fmt.Sprintf(`{"marker":%q,"campaign":"spring-launch"}`, marker)
	if e.Target.Key.In == targets.KeyInBody {
		link = fmt.Sprintf(`{"marker":%q,"campaign":"spring-launch",%q:%q}`, marker, e.Target.Key.Name, agent.KeySlot)
	}
	lookup := strings.ReplaceAll(e.Target.LookupPath, "{{.Key}}", "{key}")
	return []agent.Step{
		{Name: stepUpload, Method: http.MethodPut, Path: "/uploads/" + marker + "/cover.png", Body: fmt.Sprintf(`{"image":"cover of %s"}`, marker), ID: "path"},
		{Name: stepRecord, Method: http.MethodPost, Path: e.Target.Create.Path, Body: string(record), Keyed: true, Creates: true, Lookup: lookup, ID: "id"},
		{Name: stepLink, Method: http.MethodPost, Path: "/resources/{" + stepRecord + "}/events", Body: link, Keyed: true, Creates: true, Lookup: lookup, ID: "id"},
		{Name: stepRead, Method: http.MethodGet, Path: "/resources/{" + stepLink + "}", ID: "id"},
	}, nil
}

// stepPattern is the path.Match pattern of a step's requests: its path
// with each {NAME} (an earlier step's id) a wildcard.
func stepPattern(s agent.Step) string { return stepRef.ReplaceAllString(s.Path, "*") }

var stepRef = regexp.MustCompile(`\{[^{}/]+\}`)

// jobState is a workflow trial's own record.
type jobState struct {
	steps []agent.Step
	// runs are where each run of the program began in the server's log.
	runs        []int
	kills       []JobKill
	unreachable bool
}

// hold arms a hold on step's next request: after the server ran it, or
// on arrival. Every hold is released by the spec's cleanup.
func (t *trial) hold(step string, after bool) heldRequest {
	if t.wt != nil {
		h := t.holdOnWire(step, after)
		t.holds = append(t.holds, h)
		return h
	}
	for _, s := range t.job.steps {
		if s.Name == step {
			h := t.ce.Server.Hold(upstream.Hold{Method: s.Method, Path: stepPattern(s), After: after})
			t.holds = append(t.holds, h)
			return h
		}
	}
	panic("no step " + step)
}

// await waits until the held request arrived, the program exited, or
// the deadline plus slack: a program that never reaches the step is
// judged on what it did, so a miss is a note, not an error.
func (t *trial) await(ctx context.Context, p *harness.ClientProcess, h heldRequest, what string) bool {
	limit := time.NewTimer(t.ce.Deadline + t.ce.Slack)
	defer limit.Stop()
	select {
	case <-h.Arrived():
		return true
	case <-p.Exited():
	case <-limit.C:
	case <-ctx.Done():
	}
	t.ev.Notes = append(t.ev.Notes, "the program never reached "+what)
	return false
}

// drop releases a held request without an answer, and records it.
func (t *trial) drop(h heldRequest, why string) {
	h.Release(false)
	if i := h.Index(); i >= 0 {
		t.lost[i] = true
	}
	t.ev.Faults = append(t.ev.Faults, why)
}

// startRun starts a run of the program and notes where it began.
func (t *trial) startRun(ctx context.Context) (*harness.ClientProcess, error) {
	t.job.runs = append(t.job.runs, len(t.ce.server().Requests()))
	return t.start(ctx)
}

// loseEachAnswer runs the program once with the first request of every
// step held: after the server ran it (its answer lost), or on arrival
// (dropped unrun, as a request lost on the way).
func loseEachAnswer(ctx context.Context, t *trial, ran bool) error {
	var holds []heldRequest
	for _, s := range t.job.steps {
		holds = append(holds, t.hold(s.Name, ran))
	}
	p, err := t.startRun(ctx)
	if err != nil {
		return err
	}
	for i, h := range holds {
		name := t.job.steps[i].Name
		if !t.await(ctx, p, h, "step "+name) {
			break
		}
		if ran {
			t.drop(h, fmt.Sprintf("step %s: the first request's answer lost (the server ran it, then closed the connection)", name))
		} else {
			t.drop(h, fmt.Sprintf("step %s: the first request dropped on arrival, unrun (the connection closed)", name))
		}
	}
	t.finish(ctx, p, fmt.Sprintf("run %d", len(t.job.runs)))
	return nil
}

// killAt runs the program until step's first request is held (after it
// ran, or on arrival), kills the program's process group, and drops the
// request.
func killAt(ctx context.Context, t *trial, step string, ran bool) error {
	h := t.hold(step, ran)
	p, err := t.startRun(ctx)
	if err != nil {
		return err
	}
	run := len(t.job.runs)
	late, landed := false, false
	if t.await(ctx, p, h, "step "+step) {
		where := "inside step " + step + " (its request ran at the server, the answer held)"
		if !ran {
			where = "between step " + t.stepBefore(step) + " and step " + step + " (its request held on arrival, unrun)"
			if t.stepBefore(step) == "" {
				where = "before step " + step + " (its request held on arrival, unrun)"
			}
		}
		late = h.ClientGaveUp()
		p.Kill("SIGKILL to its process group " + where)
		landed = true
		t.job.kills = append(t.job.kills, JobKill{Run: run, Step: step, Ran: ran})
		t.drop(h, "run "+fmt.Sprint(run)+": killed "+where)
	} else {
		// Disarmed, so that the runs after this one are not held.
		h.Release(true)
	}
	t.finish(ctx, p, fmt.Sprintf("run %d", run))
	if late {
		return fmt.Errorf("%w: the program had given up on step %s's request (its own timeout) before the kill came", errFaultLate, step)
	}
	// The program's giving up can reach the hold after the look at it
	// above: what the killed run sent after the held request says so
	// for certain (a resend or a look-up of the step means it had
	// stopped waiting, and a resend that finished the step would leave
	// nothing unfinished to resume).
	if landed && movedOn(t.requestsAfter(h), step) {
		return fmt.Errorf("%w: the program had given up on step %s's request and gone on with the step (sent it again or looked it up) before the kill came", errFaultLate, step)
	}
	return nil
}

// requestsAfter are the requests logged after the held one (none when
// it is not in the log).
func (t *trial) requestsAfter(h heldRequest) []JobRequest {
	i := h.Index()
	if i < 0 {
		return nil
	}
	var out []JobRequest
	if t.wt != nil {
		for _, x := range t.ce.Wire.Interposer.Record().Since(i + 1) {
			switch x.Kind {
			case wire.Lookup:
				out = append(out, JobRequest{Kind: "lookup", Key: x.Key})
			case wire.Create:
				out = append(out, JobRequest{Kind: "send", Step: stepOf(x.Operation), Key: x.Key})
			}
		}
		return out
	}
	log := t.ce.requests()
	for j := i + 1; j < len(log); j++ {
		out = append(out, t.jobRequest(j, log[j]))
	}
	return out
}

// movedOn says whether a run that sent rs after a held request of step
// had stopped waiting for it: it sent the step again or looked a key up.
func movedOn(rs []JobRequest, step string) bool {
	for _, r := range rs {
		if r.Kind == "lookup" || r.Kind == "send" && r.Step == step {
			return true
		}
	}
	return false
}

// errFaultLate says a fault landed after the moment it was aimed at (a
// kill after the program stopped waiting for the request it was meant
// to interrupt): what followed shows nothing of the rule, so the trial
// is run again from the start (trialAttempts), never judged.
var errFaultLate = errors.New("the fault landed late")

// trialAttempts bounds how often a trial whose fault landed late runs
// again: on a machine so loaded that a kill takes longer than the
// program's attempt timeout, the check ends ERROR and says so.
const trialAttempts = 3

// stepBefore names the step before step ("" for the first).
func (t *trial) stepBefore(step string) string {
	for i, s := range t.job.steps {
		if s.Name == step && i > 0 {
			return t.job.steps[i-1].Name
		}
	}
	return ""
}

// runToEnd runs the program once more, with no fault of its own and
// the same state directory.
func runToEnd(ctx context.Context, t *trial) error {
	why := "started with the same state directory"
	if n := len(t.rec.Exits); n > 0 {
		why = startedAgain(n, t.rec.Exits[n-1])
	}
	p, err := t.startRun(ctx)
	if err != nil {
		return err
	}
	t.finish(ctx, p, fmt.Sprintf("run %d (%s)", len(t.job.runs), why))
	return nil
}

// endAndJudge runs the program runs more times to its end, with no
// fault, then judges the job's trial: each W check after its faulted
// runs.
func endAndJudge(ctx context.Context, t *trial, runs int, judge func(JobTrial) check.Verdict) (check.Verdict, error) {
	for i := 0; i < runs; i++ {
		if err := runToEnd(ctx, t); err != nil {
			return check.Verdict{}, err
		}
	}
	jt, err := t.judgeJob(ctx)
	if err != nil {
		return check.Verdict{}, err
	}
	return judge(jt), nil
}

// startedAgain says how run n, the one before, ended: a run killed is
// not a run that came to its end.
func startedAgain(n int, x check.ClientExit) string {
	if x.Killed != "" {
		return fmt.Sprintf("started again with the same state directory after run %d was killed: %s", n, x.Killed)
	}
	return fmt.Sprintf("started again with the same state directory after run %d ended: %s", n, endOf(x))
}

// unreachableAfter runs the program until step's first request ran at
// the server, then makes the server unreachable (a blackhole on the
// program's lane) until the program ends, and drops the answer.
func unreachableAfter(ctx context.Context, t *trial, step string) error {
	h := t.hold(step, true)
	p, err := t.startRun(ctx)
	if err != nil {
		return err
	}
	if t.await(ctx, p, h, "step "+step) {
		if _, err := t.applyFault(harness.Blackhole{}, "on the program's lane from the moment step "+step+"'s first request ran, to the end of the run"); err != nil {
			t.finish(ctx, p, "run 1")
			return err
		}
		t.job.unreachable = true
		t.drop(h, "step "+step+": the first request's answer lost, and the server unreachable from then on")
	}
	t.finish(ctx, p, fmt.Sprintf("run %d", len(t.job.runs)))
	return nil
}

// judgeJob reads the server's log and database into the trial's
// JobTrial.
func (t *trial) judgeJob(ctx context.Context) (JobTrial, error) {
	if t.wt != nil {
		return t.judgeJobWire(ctx)
	}
	jt := JobTrial{Exits: t.rec.Exits, Kills: t.job.kills, Unreachable: t.job.unreachable, Deadline: t.ce.Deadline, Slack: t.ce.Slack, Created: map[string][]string{}}
	for _, s := range t.job.steps {
		jt.Steps = append(jt.Steps, JobStep{Name: s.Name, Keyed: s.Keyed, Creates: s.Creates})
	}
	log := t.ce.requests()
	for i := t.offset; i < len(log); i++ {
		jt.Requests = append(jt.Requests, t.jobRequest(i, log[i]))
	}
	jt.attributeLookups()
	owned, err := t.ce.Server.Census(ctx, t.in.Marker)
	if err != nil {
		return jt, fmt.Errorf("the server's database: %w", err)
	}
	reading := check.Reading{Marker: t.in.Marker, Count: len(owned), Oracle: "the reference server's database", When: "after the job"}
	for _, o := range owned {
		step := stepRecord
		if o.Parent != "" {
			step = stepLink
		}
		jt.Created[step] = append(jt.Created[step], o.ID)
		reading.IDs = append(reading.IDs, fmt.Sprintf("%s (%s, tenant %s)", o.ID, step, upstream.TenantName(o.Tenant)))
	}
	t.ev.Readings = append(t.ev.Readings, reading)
	t.jobRec = &jt
	return jt, nil
}

// jobRequest is the server's log entry i as a request of the job: a
// look-up, or a send of the step its method and path match.
func (t *trial) jobRequest(i int, a upstream.Arrival) JobRequest {
	r := JobRequest{Seq: i - t.offset + 1, Run: t.runOf(i), Key: a.Key, Tenant: upstream.TenantName(a.Tenant), Status: a.Status, Lost: t.lost[i] && !a.Dropped, Dropped: a.Dropped, Method: a.Method, Path: a.Path}
	if ok, _ := path.Match(strings.ReplaceAll(t.in.LookupPath, "{key}", "*"), a.Path); ok && a.Method == http.MethodGet {
		r.Kind = "lookup"
		return r
	}
	r.Kind = "send"
	for _, s := range t.job.steps {
		if ok, _ := path.Match(stepPattern(s), a.Path); ok && s.Method == a.Method {
			r.Step = s.Name
			break
		}
	}
	return r
}

// runOf is the run of the program a log entry came from.
func (t *trial) runOf(i int) int {
	run := 0
	for n, start := range t.job.runs {
		if i >= start {
			run = n + 1
		}
	}
	return run
}

// table is the server's log of a workflow trial, as evidence.
func (jt JobTrial) table() check.Table {
	tb := check.Table{Title: "the reference server's log", Columns: []string{"#", "run", "step", "request", "key", "tenant", "status", "answer"}}
	for _, r := range jt.Requests {
		answer := "delivered"
		switch {
		case r.Dropped:
			answer, r.Status = "dropped on arrival by idemspec, unrun", 0
		case r.Lost:
			answer = "lost by idemspec"
		}
		status := fmt.Sprint(r.Status)
		if r.Dropped {
			status = "-"
		}
		tb.Rows = append(tb.Rows, []string{fmt.Sprint(r.Seq), fmt.Sprint(r.Run), orNone(r.Step), r.Kind + " " + r.Method + " " + r.Path, orNone(r.Key), r.Tenant, status, answer})
	}
	return tb
}

// sibling is another operation for the same check: a fresh marker and
// state directory, sharing this trial's evidence and holds.
func (t *trial) sibling(scope string) (*trial, error) {
	u, err := newTrial(t.ce, scope, true)
	if err != nil {
		return nil, err
	}
	u.ev = t.ev
	u.offset = len(t.ce.Server.Requests())
	t.siblings = append(t.siblings, u)
	return u, nil
}
