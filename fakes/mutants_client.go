package fakes

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/idemspec/idemspec/fakes/mutant"
	"github.com/idemspec/idemspec/harness/retry"
)

// The client's mutants: the reference client with one of its steps
// replaced or wrapped, each caught by one client check.
var clientMutants = asMutantsOf(OfClient, []mutant.Mutant{
	{
		Name:    "new-key-per-retry",
		Bug:     "sends every retry in this process with a fresh key",
		Catches: mutant.Checks("C1"),
		Change: func(st *clientSteps) {
			st.create = onRetries(st.create, func(key string, payload []byte, _ int) (string, []byte) {
				return retry.NewUUID(), payload
			})
		},
	},
	{
		Name:    "new-payload-per-retry",
		Bug:     "adds the attempt number to the payload of every retry (the bytes change)",
		Catches: mutant.Checks("C2"),
		Change: func(st *clientSteps) {
			st.create = onRetries(st.create, func(key string, payload []byte, attempt int) (string, []byte) {
				return key, withAttempt(payload, attempt)
			})
		},
	},
	{
		Name:    "unbounded-retry",
		Bug:     "starts over with a fresh budget until it succeeds or is killed, ignoring its budget and deadline",
		Catches: mutant.Checks("C3"),
		Change: func(st *clientSteps) {
			submit := st.submit
			st.submit = func(ctx context.Context, c *retry.Client, id string, payload []byte) (retry.Result, error) {
				res, err := submit(ctx, c, id, payload)
				for err == nil && !res.State.Done() {
					res, err = c.Run(ctx, id) // a fresh budget and deadline, again and again
				}
				return res, err
			}
		},
	},
	{
		Name:    "failed-on-timeout",
		Bug:     "takes a create that got no answer for a refusal and reports FAILED",
		Catches: mutant.Checks("C4"),
		Change: func(st *clientSteps) {
			st.doer = misread{st.doer, func(req *http.Request, resp *http.Response, err error) (*http.Response, error) {
				if err != nil {
					return &http.Response{StatusCode: http.StatusBadRequest, Body: io.NopCloser(strings.NewReader("{}")), Header: http.Header{}, Request: req}, nil
				}
				return resp, err
			}, false}
		},
	},
	{
		Name:    "no-reconcile",
		Bug:     "resubmits after an unknown outcome without looking the operation up",
		Catches: mutant.Checks("C5"),
		Change:  func(st *clientSteps) { st.reconciler = nil },
	},
	{
		Name:    "memory-state",
		Bug:     "keeps its key in memory only, so a restarted client starts a new operation",
		Catches: mutant.Checks("C6"),
		Change: func(st *clientSteps) {
			// A journal nobody will find again, as good as memory.
			st.journal = filepath.Join(filepath.Dir(st.journal), fmt.Sprintf("memory-%d-%d.db", os.Getpid(), time.Now().UnixNano()))
		},
	},
	{
		Name:    "retry-final-4xx",
		Bug:     "retries a create refused with 400 or 422 as if it were a 503",
		Catches: mutant.Checks("C7"),
		Change: func(st *clientSteps) {
			st.doer = misread{st.doer, func(_ *http.Request, resp *http.Response, err error) (*http.Response, error) {
				if err == nil && (resp.StatusCode == http.StatusBadRequest || resp.StatusCode == http.StatusUnprocessableEntity) {
					resp.StatusCode = http.StatusServiceUnavailable
				}
				return resp, err
			}, false}
		},
	},
})

// onRetries changes the key or the payload of every create after the
// first that create builds.
func onRetries(create newRequest, change func(key string, payload []byte, attempt int) (string, []byte)) newRequest {
	attempts := 0
	return func(ctx context.Context, key string, payload []byte) (*http.Request, error) {
		attempts++
		if attempts > 1 {
			key, payload = change(key, payload, attempts)
		}
		return create(ctx, key, payload)
	}
}

// withAttempt adds an "attempt" member to a JSON object payload.
func withAttempt(payload []byte, n int) []byte {
	var obj map[string]any
	if json.Unmarshal(payload, &obj) != nil {
		return append(payload, ' ')
	}
	obj["attempt"] = n
	b, _ := json.Marshal(obj)
	return b
}

// misread is a Doer that reads the answers to creates wrong.
type misread struct {
	retry.Doer
	answer func(req *http.Request, resp *http.Response, err error) (*http.Response, error)
	// everyMethod misreads every request's answer, not only creates'.
	everyMethod bool
}

func (m misread) Do(req *http.Request) (*http.Response, error) {
	resp, err := m.Doer.Do(req)
	if req.Method != http.MethodPost && !m.everyMethod {
		return resp, err
	}
	return m.answer(req, resp, err)
}
