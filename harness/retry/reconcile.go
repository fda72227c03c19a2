package retry

import (
	"context"
	"fmt"
	"io"
	"net/http"
)

// Fate is what the server knows of an operation.
type Fate string

const (
	// NotFound: the server knows neither the key nor the resource. This
	// is the only answer after which the client resubmits (same key).
	NotFound Fate = "not-found"
	// InProgress: the server knows the key but has no resource yet.
	InProgress Fate = "in-progress"
	// Found: the resource exists.
	Found Fate = "found"
)

// Finding is the answer of one reconciliation.
type Finding struct {
	Fate       Fate
	ResourceID string // when Found, if the server said
}

// Reconciler asks the server what became of an operation whose outcome
// is unknown. An error means the client still cannot tell.
type Reconciler interface {
	Reconcile(ctx context.Context, op Operation) (Finding, error)
}

// HTTPReconciler reconciles with one request: a look-up by key (GET
// /idempotency-keys/{key}) or a search by something unique in the
// payload (GET /resources?marker=...).
type HTTPReconciler struct {
	Doer Doer
	// NewRequest builds the request for op.
	NewRequest func(ctx context.Context, op Operation) (*http.Request, error)
	// Read interprets the answer; an error means "cannot tell".
	Read func(status int, body []byte) (Finding, error)
}

func (r HTTPReconciler) Reconcile(ctx context.Context, op Operation) (Finding, error) {
	req, err := r.NewRequest(ctx, op)
	if err != nil {
		return Finding{}, fmt.Errorf("build the reconciliation request: %w", err)
	}
	resp, err := r.Doer.Do(req)
	if err != nil {
		return Finding{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return Finding{}, fmt.Errorf("read the reconciliation answer: %w", err)
	}
	return r.Read(resp.StatusCode, body)
}
