package fakes

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/idemspec/idemspec/fakes/mutant"
	"github.com/idemspec/idemspec/harness/retry"
	"github.com/idemspec/idemspec/harness/retry/state"
)

// The workflow agent's mutants: the reference agent (workflow.go) with
// one of its steps replaced or wrapped, each caught by the W checks its
// entry lists.
var workflowMutants = asMutantsOf(OfWorkflow, []mutant.Mutant{
	{
		Name:    "redo-finished-steps",
		Bug:     "after a restart, sends every step again, the finished ones too (with their journaled keys)",
		Catches: mutant.Checks("W2"),
		Change: func(st *jobSteps) {
			open, began := st.journal, time.Now()
			st.journal = func(path string) (retry.Journal, io.Closer, error) {
				j, c, err := open(path)
				return forgetful{j, began}, c, err
			}
		},
	},
	{
		Name:    "new-key-on-resume",
		Bug:     "after a restart, resends an unfinished step with a fresh key (its look-ups still use the journaled one)",
		Catches: mutant.Checks("W2"),
		Change: func(st *jobSteps) {
			var mu sync.Mutex
			fresh := map[string]string{}
			st.sendKey = func(resumed bool, key string) string {
				if !resumed {
					return key
				}
				mu.Lock()
				defer mu.Unlock()
				if fresh[key] == "" {
					fresh[key] = retry.NewUUID()
				}
				return fresh[key]
			}
		},
	},
	{
		// A Celery task killed mid-request stays unacknowledged for
		// the broker's visibility timeout, so its step is not resent
		// within a job's run.
		Name:    "abandon-unfinished",
		Bug:     "after a restart, leaves the step it was killed in as it was (neither looks it up nor resends it) and ends the job there",
		Catches: mutant.Checks("W2"),
		// W5 sees no later request of the step, so nothing of its key.
		Skips:  []string{"W5"},
		Change: func(st *jobSteps) { st.resume = func(string) bool { return false } },
	},
	{
		Name:    "timeout-restarts-job",
		Bug:     "takes a request that got no answer for a failure of the job and starts the job over with fresh keys, until its deadline",
		Catches: mutant.Checks("W1", "W3", "W4"),
		Change: func(st *jobSteps) {
			st.doer = misread{st.doer, func(req *http.Request, resp *http.Response, err error) (*http.Response, error) {
				if err != nil {
					return &http.Response{StatusCode: http.StatusBadRequest, Body: io.NopCloser(strings.NewReader("{}")), Header: http.Header{}, Request: req}, nil
				}
				return resp, err
			}, true}
			st.startOver = func(s state.State) bool { return s == state.FailedFinal }
		},
	},
	{
		Name:    "job-state-in-memory",
		Bug:     "keeps its job in memory only, so a restarted agent starts the job from scratch",
		Catches: mutant.Checks("W1", "W2", "W5"),
		Change: func(st *jobSteps) {
			st.journalPath = filepath.Join(filepath.Dir(st.journalPath), fmt.Sprintf("memory-%d-%d.db", os.Getpid(), time.Now().UnixNano()))
		},
	},
	{
		Name:    "state-after-send",
		Bug:     "journals a step's key and state after its send instead of before",
		Catches: mutant.Checks("W2", "W5"),
		Change: func(st *jobSteps) {
			open := st.journal
			st.journal = func(path string) (retry.Journal, io.Closer, error) {
				j, c, err := open(path)
				return &lateJournal{Journal: j, held: map[string]retry.Operation{}}, c, err
			}
		},
	},
})

// forgetful is a journal that, for this process, forgets which steps an
// earlier one finished: it reads them back as PENDING.
type forgetful struct {
	retry.Journal
	began time.Time
}

func (f forgetful) Load(ctx context.Context, id string) (retry.Operation, error) {
	op, err := f.Journal.Load(ctx, id)
	if err == nil && op.State == state.Succeeded && op.UpdatedAt.Before(f.began) {
		op.State = state.Pending
	}
	return op, err
}

// lateJournal writes an operation durably only once a send has
// returned: a new operation and its SUBMITTING state stay in memory
// until the next change of state, which comes after the send.
type lateJournal struct {
	retry.Journal
	mu   sync.Mutex
	held map[string]retry.Operation // created or submitting, not yet written
}

func (l *lateJournal) Create(ctx context.Context, op retry.Operation) (retry.Operation, error) {
	if stored, err := l.Load(ctx, op.ID); err == nil {
		return stored, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.held[op.ID] = op
	return op, nil
}

func (l *lateJournal) Load(ctx context.Context, id string) (retry.Operation, error) {
	l.mu.Lock()
	op, ok := l.held[id]
	l.mu.Unlock()
	if ok {
		return op, nil
	}
	return l.Journal.Load(ctx, id)
}

func (l *lateJournal) Update(ctx context.Context, op retry.Operation) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.held[op.ID]; ok {
		if op.State == state.Submitting {
			l.held[op.ID] = op // the send is about to go: not on disk yet
			return nil
		}
		delete(l.held, op.ID)
		if _, err := l.Journal.Create(ctx, op); err != nil {
			return err
		}
	}
	return l.Journal.Update(ctx, op)
}
