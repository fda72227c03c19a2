package harness

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/idemspec/idemspec/harness/retry"
	"github.com/idemspec/idemspec/targets"
)

// Settings are the knobs a run may turn.
type Settings struct {
	// Repeats is how many times S1 sends the same request.
	Repeats int
	// BurstSize is how many same-key requests a burst releases together.
	BurstSize int
	// RequestTimeout bounds one attempt on a clean lane.
	RequestTimeout time.Duration
	// ContinueWait bounds how long a burst waits for the server to ask
	// for the bodies (100 Continue) before it releases them anyway.
	ContinueWait time.Duration
	// CommitWait bounds how long a scenario waits for the oracle to show
	// a commit whose answer was lost.
	CommitWait time.Duration
	// Retry is the reference retrying client's policy while S6 holds a
	// fault on the faulty lane. Every attempt is going to time out, so
	// attempts are short.
	Retry retry.Policy
}

// DefaultSettings are tuned to find the core bugs in seconds on 2 cores.
func DefaultSettings() Settings {
	return Settings{
		Repeats:        5,
		BurstSize:      20,
		RequestTimeout: 10 * time.Second,
		ContinueWait:   time.Second,
		CommitWait:     10 * time.Second,
		Retry: retry.Policy{
			MaxAttempts:    3,
			AttemptTimeout: 250 * time.Millisecond,
			Deadline:       5 * time.Second,
			BaseBackoff:    20 * time.Millisecond,
			MaxBackoff:     200 * time.Millisecond,
		},
	}
}

// Env is one run's harness: the target, the proxy lanes in front of it
// and the run's identity. Scenarios share one Env; each keeps its own
// History.
type Env struct {
	Target   *targets.Target
	RunID    string
	Settings Settings

	// Clean carries requests meant to go through untouched; Faulty
	// carries the requests a scenario wants faults on.
	Clean, Faulty *Lane

	proxies *proxies
	markers atomic.Int64
}

// New starts the proxies in front of t.
func New(t *targets.Target, s Settings) (*Env, error) {
	e := &Env{Target: t, RunID: newToken(4), Settings: s, proxies: newProxies()}
	var err error
	if e.Clean, err = e.proxies.lane("clean", t.Upstream()); err != nil {
		return nil, err
	}
	if e.Faulty, err = e.proxies.lane("faulty", t.Upstream()); err != nil {
		e.proxies.close()
		return nil, err
	}
	e.Clean.client = newLaneClient(e.Clean, true)
	e.Faulty.client = newLaneClient(e.Faulty, false)
	return e, nil
}

// Close stops the proxies (the target is closed by its owner).
func (e *Env) Close() error {
	e.Clean.client.CloseIdleConnections()
	e.Faulty.client.CloseIdleConnections()
	return e.proxies.close()
}

// ClearFaults removes every fault from every lane.
func (e *Env) ClearFaults() { e.proxies.resetAll() }

// NewKey makes a fresh idempotency key in the target's declared format.
func (e *Env) NewKey() string { return e.Target.Key.NewKey() }

// NewMarker makes a marker unique to this run and scenario, so the oracle
// counts only the resources this scenario created.
func (e *Env) NewMarker(scope string) string {
	return fmt.Sprintf("idemspec-%s-%s-%d", e.RunID, scope, e.markers.Add(1))
}

// Body renders the target's create body for a marker and variant.
func (e *Env) Body(marker, variant string) ([]byte, error) {
	return e.Target.Body(targets.Payload{Marker: marker, Variant: variant})
}

// Observe asks the oracle about a marker.
func (e *Env) Observe(ctx context.Context, marker string) (targets.Observation, error) {
	ctx, cancel := context.WithTimeout(ctx, e.Settings.RequestTimeout)
	defer cancel()
	return e.Target.Oracle.Observe(ctx, marker)
}

// AwaitCommit polls the oracle until it shows at least one resource for
// marker, or the commit wait passes. It is how a scenario knows the
// server finished a request whose answer the harness made sure to lose.
func (e *Env) AwaitCommit(ctx context.Context, marker string) (targets.Observation, error) {
	ctx, cancel := context.WithTimeout(ctx, e.Settings.CommitWait)
	defer cancel()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		obs, err := e.Observe(ctx, marker)
		if err == nil && obs.Count > 0 {
			return obs, nil
		}
		select {
		case <-ctx.Done():
			if err == nil {
				err = fmt.Errorf("no resource with marker %s appeared within %v", marker, e.Settings.CommitWait)
			}
			return obs, err
		case <-tick.C:
		}
	}
}

// Preflight checks that the oracle can reach the target before any
// scenario runs, so an unreachable target is one plain error.
func (e *Env) Preflight(ctx context.Context) error {
	if _, err := e.Observe(ctx, e.NewMarker("preflight")); err != nil {
		return fmt.Errorf("target %s is not reachable: %w", e.Target.BaseURL.Redacted(), err)
	}
	return nil
}

func newToken(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
