package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/idemspec/idemspec/harness/retry"
	"github.com/idemspec/idemspec/harness/retry/state"
)

// Result is the line the contract asks for on stdout's last line.
type Result struct {
	State      string `json:"state"`
	ResourceID string `json:"resource_id,omitempty"`
	Reason     string `json:"reason,omitempty"`
	Sent       int    `json:"sent"`
	Lookups    int    `json:"lookups"`
}

// Run creates one resource as the contract describes and prints its
// Result. Exit codes: 0 SUCCEEDED, 1 another end, 2 bad inputs.
func Run(ctx context.Context, in Inputs, m Mutant, stdout, stderr io.Writer) int {
	journalPath := filepath.Join(in.StateDir, "journal.db")
	if m.bug == bugMemoryState {
		// The bug: a journal nobody will find again, as good as memory.
		journalPath = filepath.Join(in.StateDir, fmt.Sprintf("memory-%d-%d.db", os.Getpid(), time.Now().UnixNano()))
	}
	j, err := retry.OpenJournal(journalPath)
	if err != nil {
		fmt.Fprintln(stderr, "agent:", err)
		return 2
	}
	defer j.Close()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: -1}, CheckRedirect: noRedirect}
	c := &retry.Client{
		Endpoint: retry.Endpoint{NewRequest: m.create(in), ResourceID: resourceID("id")},
		Doer:     m.doer(hc),
		Journal:  j,
		Policy: retry.Policy{
			MaxAttempts: in.AttemptBudget, AttemptTimeout: in.AttemptTimeout, Deadline: in.Deadline,
			BaseBackoff: in.AttemptTimeout / 10, MaxBackoff: in.AttemptTimeout,
		},
	}
	if m.bug != bugNoReconcile {
		c.Reconciler = lookup(in, hc)
	}
	res, err := c.Submit(ctx, in.Marker, []byte(in.Payload))
	for m.bug == bugUnboundedRetry && err == nil && !res.State.Done() {
		// The bug: a fresh budget and deadline, again and again.
		res, err = c.Run(ctx, in.Marker)
	}
	if err != nil {
		fmt.Fprintln(stderr, "agent:", err)
	}
	for _, ev := range res.Events {
		fmt.Fprintf(stderr, "agent: %s %d key=%s class=%s fate=%s status=%d %s\n", ev.Kind, ev.N, ev.Key, ev.Class, ev.Fate, ev.Status, ev.Error)
	}
	out := Result{State: contractState(res.State), ResourceID: res.ResourceID, Reason: res.Reason, Sent: res.Sent, Lookups: res.Lookups}
	b, _ := json.Marshal(out)
	fmt.Fprintf(stdout, "%s\n", b)
	if out.State != string(state.Succeeded) {
		return 1
	}
	return 0
}

// contractState maps the journal's states to the contract's three.
func contractState(s state.State) string {
	switch s {
	case state.FailedFinal, state.FailedRetryable:
		return string(state.Failed)
	case state.Succeeded:
		return string(state.Succeeded)
	}
	return string(state.UnknownResult)
}

func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// create builds the create request; two mutants change a retry's key or
// bytes.
func (m Mutant) create(in Inputs) func(ctx context.Context, key string, payload []byte) (*http.Request, error) {
	attempts := 0
	return func(ctx context.Context, key string, payload []byte) (*http.Request, error) {
		attempts++
		if attempts > 1 && m.bug == bugNewKeyPerRetry {
			key = retry.NewUUID()
		}
		if attempts > 1 && m.bug == bugNewPayloadPerRetry {
			payload = withAttempt(payload, attempts)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, in.ServerURL+in.CreatePath, bytes.NewReader(payload))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(in.KeyHeader, key)
		return req, nil
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

// lookup reconciles by key: 404 is not found, a resource id is found,
// a known key without one is still in progress.
func lookup(in Inputs, doer retry.Doer) retry.Reconciler {
	return retry.HTTPReconciler{
		Doer: doer,
		NewRequest: func(ctx context.Context, op retry.Operation) (*http.Request, error) {
			return http.NewRequestWithContext(ctx, http.MethodGet, in.ServerURL+strings.ReplaceAll(in.LookupPath, "{key}", op.Key), nil)
		},
		Read: func(status int, body []byte) (retry.Finding, error) {
			switch {
			case status == http.StatusNotFound:
				return retry.Finding{Fate: retry.NotFound}, nil
			case status != http.StatusOK:
				return retry.Finding{}, fmt.Errorf("look-up answered %d", status)
			}
			if id := resourceID("resource_id")(body); id != "" {
				return retry.Finding{Fate: retry.Found, ResourceID: id}, nil
			}
			return retry.Finding{Fate: retry.InProgress}, nil
		},
	}
}

func resourceID(field string) func([]byte) string {
	return func(body []byte) string {
		var obj map[string]any
		if json.Unmarshal(body, &obj) != nil || obj[field] == nil {
			return ""
		}
		return fmt.Sprint(obj[field])
	}
}

// buggyDoer is where two mutants misread answers.
type buggyDoer struct {
	retry.Doer
	bug bug
}

func (m Mutant) doer(d retry.Doer) retry.Doer {
	if m.bug == bugFailedOnTimeout || m.bug == bugRetryFinal4xx {
		return buggyDoer{Doer: d, bug: m.bug}
	}
	return d
}

func (b buggyDoer) Do(req *http.Request) (*http.Response, error) {
	resp, err := b.Doer.Do(req)
	if req.Method != http.MethodPost {
		return resp, err
	}
	switch {
	case err != nil && b.bug == bugFailedOnTimeout:
		// The bug: no answer read as a refusal.
		return &http.Response{StatusCode: http.StatusBadRequest, Body: io.NopCloser(strings.NewReader("{}")), Header: http.Header{}, Request: req}, nil
	case err == nil && b.bug == bugRetryFinal4xx && (resp.StatusCode == 400 || resp.StatusCode == 422):
		// The bug: a final refusal read as a passing outage.
		resp.StatusCode = http.StatusServiceUnavailable
	}
	return resp, err
}
