package targets

import (
	"context"
	"fmt"
	"net/http"

	"github.com/idemspec/idemspec/internal/exactjson"
)

// How a client can reconcile an unknown outcome with a target.
const (
	// ReconcileLookup: GET the key's record (lookup.path).
	ReconcileLookup = "lookup"
	// ReconcileOracle: the oracle's list endpoint is part of the API
	// clients use, so a client can search for its marker.
	ReconcileOracle = "oracle"
	// ReconcileNone: a client cannot learn what became of a request
	// whose answer it lost.
	ReconcileNone = "none"
)

// NewLookup builds the look-up request for key (LookupPath).
func (t *Target) NewLookup(ctx context.Context, key string) (*http.Request, error) {
	if t.LookupPath == "" {
		return nil, fmt.Errorf("target %s declares no lookup.path", t.Name)
	}
	p, err := t.lookupPath(key)
	if err != nil {
		return nil, err
	}
	u, err := t.pathURL(p)
	if err != nil {
		return nil, fmt.Errorf("lookup.path: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	t.addHeaders(req)
	return req, nil
}

// ReadLookup reads a look-up answer: 404 or 410 means the target does
// not know the key; a 2xx means it does, with the resource id when the
// request has finished ("" while it is still in progress).
func (t *Target) ReadLookup(status int, body []byte) (known bool, resourceID string, err error) {
	switch {
	case status == http.StatusNotFound || status == http.StatusGone:
		return false, "", nil
	case status < 200 || status > 299:
		return false, "", fmt.Errorf("look-up answered %d", status)
	}
	doc, err := exactjson.Decode(body)
	if err != nil {
		return false, "", fmt.Errorf("look-up answer is not JSON: %w", err)
	}
	if id := dig(doc, t.LookupIDField); id != nil && fmt.Sprint(id) != "" {
		return true, fmt.Sprint(id), nil
	}
	return true, "", nil
}

// ClientOracle is an oracle that reads the target's own API, so a client
// may search with it too (an oracle that queries the database may not).
type ClientOracle interface {
	Oracle
	// Request builds the oracle's request for marker.
	Request(ctx context.Context, marker string) (*http.Request, error)
	// Read counts the resources carrying marker in an answer.
	Read(status int, body []byte, marker string) (Observation, error)
}
