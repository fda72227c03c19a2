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

	"github.com/idemspec/idemspec/fakes/mutant"
	"github.com/idemspec/idemspec/harness/agent"
	"github.com/idemspec/idemspec/harness/retry"
	"github.com/idemspec/idemspec/harness/retry/state"
)

// clientSteps are the parts the reference client is made of, one field
// each, so a client mutant is the reference with one of them replaced or
// wrapped (mutants_client.go).
type clientSteps struct {
	// journal is the file the client keeps its operation in, across
	// restarts.
	journal string
	// create builds one create request.
	create newRequest
	// doer sends the create requests.
	doer retry.Doer
	// reconciler looks an operation up by its key (nil: never).
	reconciler retry.Reconciler
	// submit runs the operation to an end state.
	submit func(ctx context.Context, c *retry.Client, id string, payload []byte) (retry.Result, error)
}

// newRequest builds a create request for a key and a payload.
type newRequest = func(ctx context.Context, key string, payload []byte) (*http.Request, error)

// referenceClient is the correct client: harness/retry, with its journal
// in the state directory, reconciling through the look-up path.
func referenceClient(in agent.Inputs, hc *http.Client) clientSteps {
	return clientSteps{
		journal: filepath.Join(in.StateDir, "journal.db"),
		create: func(ctx context.Context, key string, payload []byte) (*http.Request, error) {
			target, body, header := in.Keyed(key, payload)
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
			if err != nil {
				return nil, err
			}
			req.Header = header
			req.Header.Set("Content-Type", "application/json")
			return req, nil
		},
		doer:       hc,
		reconciler: lookup(in, hc),
		submit: func(ctx context.Context, c *retry.Client, id string, payload []byte) (retry.Result, error) {
			return c.Submit(ctx, id, payload)
		},
	}
}

// RunClient is the reference client of client mode, or the mutant m of
// it: it creates one resource as the contract (harness/agent) describes
// and prints its Result. With a token, every request it sends carries
// `Authorization: Bearer token`, as an SDK's do. Exit codes: 0
// SUCCEEDED, 1 FAILED, 3 UNKNOWN_RESULT, 2 bad inputs (ExitCode).
func RunClient(ctx context.Context, in agent.Inputs, m mutant.Mutant, token string, stdout, stderr io.Writer) int {
	return runClient(ctx, in, referenceClient(in, clientHTTP(token)), m, stdout, stderr)
}

// runClient runs the client made of st, or the mutant m of it.
func runClient(ctx context.Context, in agent.Inputs, st clientSteps, m mutant.Mutant, stdout, stderr io.Writer) int {
	if bug, ok := m.Change.(func(*clientSteps)); ok {
		bug(&st)
	}
	j, err := retry.OpenJournal(st.journal)
	if err != nil {
		fmt.Fprintln(stderr, "agent:", err)
		return 2
	}
	defer j.Close()
	c := &retry.Client{
		Endpoint:   retry.Endpoint{NewRequest: st.create, ResourceID: resourceID("id")},
		Doer:       st.doer,
		Journal:    j,
		Reconciler: st.reconciler,
		Policy: retry.Policy{
			MaxAttempts: in.AttemptBudget, AttemptTimeout: in.AttemptTimeout, Deadline: in.Deadline,
			BaseBackoff: in.AttemptTimeout / 10, MaxBackoff: in.AttemptTimeout,
		},
	}
	res, err := st.submit(ctx, c, in.Marker, []byte(in.Payload))
	if err != nil {
		fmt.Fprintln(stderr, "agent:", err)
	}
	for _, ev := range res.Events {
		fmt.Fprintf(stderr, "agent: %s %d key=%s class=%s fate=%s status=%d %s\n", ev.Kind, ev.N, ev.Key, ev.Class, ev.Fate, ev.Status, ev.Error)
	}
	out := agent.Result{State: string(contractState(res.State)), ResourceID: res.ResourceID, Reason: res.Reason, Sent: res.Sent, Lookups: res.Lookups}
	b, _ := json.Marshal(out)
	fmt.Fprintf(stdout, "%s\n", b)
	return ExitCode(state.State(out.State))
}

// ExitCode is the reference client's exit for an end state of the
// contract: a program judged without its result line (an unmodified
// agent's exit code, mapped by `idemspec client --exit-codes`) still
// tells the three apart.
func ExitCode(s state.State) int {
	switch s {
	case state.Succeeded:
		return 0
	case state.Failed:
		return 1
	}
	return 3
}

// contractState maps the journal's states to the contract's three.
func contractState(s state.State) state.State {
	switch s {
	case state.Succeeded:
		return state.Succeeded
	case state.FailedFinal, state.FailedRetryable:
		return state.Failed
	}
	return state.UnknownResult
}

func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// clientHTTP is the reference client's HTTP client: one attempt per
// send (a connection is never reused, so net/http never resends a
// create by itself), no redirects, and the token on every request.
func clientHTTP(token string) *http.Client {
	var rt http.RoundTripper = &http.Transport{MaxIdleConnsPerHost: -1}
	if token != "" {
		rt = bearer{rt, "Bearer " + token}
	}
	return &http.Client{Transport: rt, CheckRedirect: noRedirect}
}

// bearer adds an Authorization header to every request.
type bearer struct {
	next          http.RoundTripper
	authorization string
}

func (b bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", b.authorization)
	return b.next.RoundTrip(req)
}

// lookup reconciles by key: 404 is not found, a resource id is found,
// a known key without one is still in progress.
func lookup(in agent.Inputs, doer retry.Doer) retry.Reconciler {
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
