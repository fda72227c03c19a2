package harness

import (
	"context"
	"fmt"
	"net/http"

	"github.com/idemspec/idemspec/harness/retry"
	"github.com/idemspec/idemspec/targets"
)

// ClientSetup describes the reference retrying client for a target.
type ClientSetup struct {
	Target *targets.Target
	// Create and Reconcile carry the client's create requests and its
	// reconciliation requests (an *http.Client, or a LaneClient).
	Create, Reconcile retry.Doer
	Journal           retry.Journal
	Policy            retry.Policy
	// Marker is the operation's marker, for a target that lets clients
	// reconcile by searching the oracle's list endpoint.
	Marker string
	// RunID, when set, goes into the client's keys where the format
	// allows, as the harness's own keys carry it.
	RunID string
}

// ReferenceClient is the reference retrying client (harness/retry) set up
// for a target: its create call, its ids, and reconciliation the way the
// target declares it (look-up by key, a search by marker through the
// oracle's list endpoint, or none).
func ReferenceClient(s ClientSetup) (*retry.Client, error) {
	t := s.Target
	c := &retry.Client{
		Endpoint: retry.Endpoint{NewRequest: t.NewCreate, ResourceID: t.ResourceID},
		Doer:     s.Create,
		Journal:  s.Journal,
		Policy:   s.Policy,
		NewKey:   func() string { return t.Key.NewRunKey(s.RunID) },
	}
	switch t.Reconcile {
	case targets.ReconcileLookup:
		c.Reconciler = retry.HTTPReconciler{
			Doer: s.Reconcile,
			NewRequest: func(ctx context.Context, op retry.Operation) (*http.Request, error) {
				return t.NewLookup(ctx, op.Key)
			},
			Read: func(status int, body []byte) (retry.Finding, error) {
				known, id, err := t.ReadLookup(status, body)
				switch {
				case err != nil:
					return retry.Finding{}, err
				case !known:
					return retry.Finding{Fate: retry.NotFound}, nil
				case id == "":
					return retry.Finding{Fate: retry.InProgress}, nil
				}
				return retry.Finding{Fate: retry.Found, ResourceID: id}, nil
			},
		}
	case targets.ReconcileOracle:
		o, ok := t.Oracle.(targets.ClientOracle)
		if !ok {
			return nil, fmt.Errorf("target %s: a %s oracle cannot serve a client's reconciliation", t.Name, t.Oracle.Kind())
		}
		if s.Marker == "" {
			return nil, fmt.Errorf("target %s reconciles through the oracle: the client needs the operation's marker", t.Name)
		}
		c.Reconciler = retry.HTTPReconciler{
			Doer: s.Reconcile,
			NewRequest: func(ctx context.Context, _ retry.Operation) (*http.Request, error) {
				return o.Request(ctx, s.Marker)
			},
			Read: func(status int, body []byte) (retry.Finding, error) {
				obs, err := o.Read(status, body, s.Marker)
				switch {
				case err != nil:
					return retry.Finding{}, err
				case obs.Count == 0:
					return retry.Finding{Fate: retry.NotFound}, nil
				case len(obs.IDs) > 0:
					return retry.Finding{Fate: retry.Found, ResourceID: obs.IDs[0]}, nil
				}
				return retry.Finding{Fate: retry.Found}, nil
			},
		}
	}
	return c, nil
}
