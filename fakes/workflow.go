package fakes

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/idemspec/idemspec/fakes/mutant"
	"github.com/idemspec/idemspec/harness/agent"
	"github.com/idemspec/idemspec/harness/retry"
	"github.com/idemspec/idemspec/harness/retry/state"
)

// The reference agent of the workflow shape (idemspec client --workflow):
// a persisted state machine per step. Each step is one operation of
// harness/retry in one journal: its key is journaled before its first
// send, its state (PENDING, SUBMITTING, SUCCEEDED, UNKNOWN_RESULT,
// FAILED_RETRYABLE, FAILED_FINAL) before every send, and a step found
// SUBMITTING or UNKNOWN_RESULT is looked up before anything is resent.
// A restarted agent finds every finished step SUCCEEDED with its id and
// does not send it again.

// jobSteps are the parts the reference agent is made of, one field each,
// so a workflow mutant replaces or wraps one (mutants_workflow.go).
type jobSteps struct {
	// journal opens where the agent keeps its job across restarts.
	journal func(path string) (retry.Journal, io.Closer, error)
	// journalPath is that file.
	journalPath string
	// doer sends every request.
	doer retry.Doer
	// sendKey is the key a send of a step carries: the journaled one
	// (resumed: the step was unfinished when this process began).
	sendKey func(resumed bool, key string) string
	// startOver says whether a step that ended in s makes the agent
	// start the whole job again with fresh operations (never, for the
	// reference).
	startOver func(s state.State) bool
	// resume says whether a step found unfinished in the journal when
	// this process began is taken up again, looked up and resent as its
	// state says (always, for the reference); one not resumed is left
	// as it is, and the job ends there.
	resume func(step string) bool
}

func referenceJob(j agent.Job, hc *http.Client) jobSteps {
	return jobSteps{
		journal: func(path string) (retry.Journal, io.Closer, error) {
			jr, err := retry.OpenJournal(path)
			return jr, jr, err
		},
		journalPath: filepath.Join(j.StateDir, "job.db"),
		doer:        hc,
		sendKey:     func(_ bool, key string) string { return key },
		startOver:   func(state.State) bool { return false },
		resume:      func(string) bool { return true },
	}
}

// RunJob is the reference agent of the workflow shape, or the workflow
// mutant m of it: it runs the job's steps in order, and prints its
// JobResult. Exit codes: 0 SUCCEEDED, 1 another end, 2 bad inputs.
func RunJob(ctx context.Context, j agent.Job, m mutant.Mutant, token string, stdout, stderr io.Writer) int {
	st := referenceJob(j, clientHTTP(token))
	if bug, ok := m.Change.(func(*jobSteps)); ok {
		bug(&st)
	}
	jr, closer, err := st.journal(st.journalPath)
	if err != nil {
		fmt.Fprintln(stderr, "agent:", err)
		return 2
	}
	defer closer.Close()
	r := &jobRun{job: j, st: st, journal: jr, stderr: stderr, deadline: time.Now().Add(j.Deadline)}
	out := r.run(ctx)
	b, _ := json.Marshal(out)
	fmt.Fprintf(stdout, "%s\n", b)
	if out.State != string(state.Succeeded) {
		return 1
	}
	return 0
}

// jobRun is one process's run of the job.
type jobRun struct {
	job      agent.Job
	st       jobSteps
	journal  retry.Journal
	stderr   io.Writer
	deadline time.Time
	// generation numbers the job's fresh starts (a mutant's), in the
	// operations' ids.
	generation int
}

func (r *jobRun) run(ctx context.Context) agent.JobResult {
	for {
		res, s := r.once(ctx)
		if s == state.Succeeded || !r.st.startOver(s) || time.Until(r.deadline) <= 0 {
			return res
		}
		r.generation++
		fmt.Fprintf(r.stderr, "agent: starting the job over (%d)\n", r.generation)
	}
}

// once runs the job's steps in order, each to its end; the job ends with
// the first step that does not succeed.
func (r *jobRun) once(ctx context.Context) (agent.JobResult, state.State) {
	ids := map[string]string{}
	applied := false // some step applied, or may have
	for _, step := range r.job.Steps {
		id := r.opID(step)
		prior, err := r.journal.Load(ctx, id)
		resumed := err == nil && !prior.State.Done()
		if resumed && !r.st.resume(step.Name) {
			return agent.JobResult{State: string(state.UnknownResult), IDs: ids, Reason: step.Name + ": left unfinished"}, state.UnknownResult
		}
		payload := []byte(agent.Fill(step.Body, ids))
		c := r.client(step, ids, resumed)
		res, err := c.Submit(ctx, id, payload)
		for _, ev := range res.Events {
			fmt.Fprintf(r.stderr, "agent: %s %s %d key=%s class=%s fate=%s status=%d %s\n", step.Name, ev.Kind, ev.N, ev.Key, ev.Class, ev.Fate, ev.Status, ev.Error)
		}
		if err != nil {
			fmt.Fprintln(r.stderr, "agent:", step.Name+":", err)
		}
		if res.State != state.Succeeded {
			end := contractState(res.State)
			if end == state.Failed && applied {
				end = state.UnknownResult // an earlier step applied: the job is neither done nor undone
			}
			return agent.JobResult{State: string(end), IDs: ids, Reason: step.Name + ": " + res.Reason}, res.State
		}
		ids[step.Name], applied = res.ResourceID, true
	}
	return agent.JobResult{State: string(state.Succeeded), IDs: ids}, state.Succeeded
}

// opID is a step's operation in the journal.
func (r *jobRun) opID(step agent.Step) string {
	if r.generation == 0 {
		return r.job.Marker + "/" + step.Name
	}
	return fmt.Sprintf("%s/%d/%s", r.job.Marker, r.generation, step.Name)
}

// client is the retrying client of one step.
func (r *jobRun) client(step agent.Step, ids map[string]string, resumed bool) *retry.Client {
	path := agent.Fill(step.Path, ids)
	c := &retry.Client{
		Endpoint: retry.Endpoint{
			NewRequest: func(ctx context.Context, key string, payload []byte) (*http.Request, error) {
				target, body, header := r.job.ServerURL+path, payload, http.Header{}
				if step.Keyed {
					target, body, header = r.job.KeyedAt(path, r.st.sendKey(resumed, key), payload)
				}
				var rd io.Reader
				if len(body) > 0 {
					rd = bytes.NewReader(body)
				}
				req, err := http.NewRequestWithContext(ctx, step.Method, target, rd)
				if err != nil {
					return nil, err
				}
				req.Header = header
				if rd != nil {
					req.Header.Set("Content-Type", "application/json")
				}
				return req, nil
			},
			ResourceID: func(body []byte) string { return field(body, step.ID, path) },
		},
		Doer:    r.st.doer,
		Journal: r.journal,
		Policy: retry.Policy{
			MaxAttempts: r.job.AttemptBudget, AttemptTimeout: r.job.AttemptTimeout, Deadline: max(time.Until(r.deadline), time.Millisecond),
			BaseBackoff: r.job.AttemptTimeout / 10, MaxBackoff: r.job.AttemptTimeout,
		},
	}
	if step.Keyed {
		c.Reconciler = lookupAt(r.job.ServerURL, step.Lookup, r.st.doer)
	}
	return c
}

// field reads a dotted path in a JSON answer; an answer without the
// field (an upload's) is known by its path.
func field(body []byte, dotted, fallback string) string {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return fallback
	}
	for _, part := range strings.Split(dotted, ".") {
		obj, ok := v.(map[string]any)
		if !ok || dotted == "" {
			return fallback
		}
		v = obj[part]
	}
	if v == nil {
		return fallback
	}
	return fmt.Sprint(v)
}

// lookupAt reconciles a keyed step through its look-up path.
func lookupAt(base, path string, doer retry.Doer) retry.Reconciler {
	return lookup(agent.Inputs{ServerURL: base, LookupPath: path}, doer)
}
