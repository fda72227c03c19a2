package harness

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/targets"
)

// Settings are the knobs a run may turn.
type Settings struct {
	// BurstSize is how many same-key requests a burst releases together.
	BurstSize int
	// RequestTimeout bounds one attempt on a clean lane.
	RequestTimeout time.Duration
	// ContinueWait bounds how long a burst waits for the server to ask
	// for the bodies (100 Continue) before it releases them anyway; the
	// wait ends within BurstPatience of the burst's first connection
	// whatever it says.
	ContinueWait time.Duration
	// CommitWait bounds how long a scenario waits for the oracle to show
	// a commit whose answer was lost.
	CommitWait time.Duration
	// Limits bound what the run sends to the target (budget, rate,
	// concurrency); the zero value is unlimited.
	Limits Limits
}

// DefaultSettings are tuned to find the core bugs in seconds on 2 cores.
func DefaultSettings() Settings {
	return Settings{
		BurstSize:      20,
		RequestTimeout: 10 * time.Second,
		ContinueWait:   BurstPatience,
		CommitWait:     10 * time.Second,
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

	// cleans and faults hold a lane pair per instance of the target.
	cleans, faults []*Lane

	proxies *proxies
	gate    *gate
	// liftMemory lifts the soft memory limit large bursts set
	// (memory.go); nil once lifted, and in an operation's Env.
	liftMemory func()
	// ops are the Envs of the target's operations (this one among them
	// when its target is one): they share the lanes, the gate and the
	// run's state, so budget, rate, concurrency and cleanup span them.
	ops []*Env
	*run
}

// run is what the Envs of one run's operations share.
type run struct {
	markers atomic.Int64
	// createLatency is how long the preflight's create took (0: none ran).
	createLatency atomic.Int64

	mu   sync.Mutex
	made []string // every marker handed out, for the cleanup
	// owner is the Env (operation) each marker was made for.
	owner map[string]*Env
	// named maps a payload digest to its marker, and a marker to the
	// resource ids the answers named: an IDOracle can only look those up.
	payloads map[string]string
	named    map[string][]string
}

// New starts the proxies in front of t.
func New(t *targets.Target, s Settings) (*Env, error) {
	e := &Env{Target: t, RunID: NewRunID(), Settings: s, proxies: newProxies(), gate: newGate(s.Limits, s.BurstSize),
		run: &run{owner: map[string]*Env{}, payloads: map[string]string{}, named: map[string][]string{}}}
	if err := e.tapTheWire(); err != nil {
		return nil, fmt.Errorf("target %s: %w", t.Name, err)
	}
	// The lanes connect to the addresses the target's hosts were pinned
	// to, not to names: DNS is asked once, if at all.
	upstreams, err := t.Pinned(context.Background())
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", t.Name, err)
	}
	for i, upstream := range upstreams {
		suffix := ""
		if i > 0 {
			suffix = fmt.Sprintf("-%d", i+1)
		}
		clean, err := e.lane("clean"+suffix, upstream, true)
		if err != nil {
			e.proxies.close()
			return nil, err
		}
		faulty, err := e.lane("faulty"+suffix, upstream, false)
		if err != nil {
			e.proxies.close()
			return nil, err
		}
		e.cleans, e.faults = append(e.cleans, clean), append(e.faults, faulty)
	}
	e.Clean, e.Faulty = e.cleans[0], e.faults[0]
	e.liftMemory = boundMemory(s.BurstSize)
	// The oracle goes straight to the target, and through the gate too
	// (every operation's: they share the file's direct client).
	e.gate.gated(t.Direct)
	for _, o := range t.Each() {
		if o == t {
			e.ops = append(e.ops, e)
			continue
		}
		e.ops = append(e.ops, &Env{Target: o, RunID: e.RunID, Settings: s, Clean: e.Clean, Faulty: e.Faulty,
			cleans: e.cleans, faults: e.faults, proxies: e.proxies, gate: e.gate, run: e.run})
	}
	return e, nil
}

// Operations are the Envs the suite drives, one per operation of the
// target (the Env itself for a target with one unnamed operation).
func (e *Env) Operations() []*Env { return e.ops }

// lane starts one proxy in front of upstream with its client.
func (e *Env) lane(name, upstream string, reuse bool) (*Lane, error) {
	l, err := e.proxies.lane(name, upstream)
	if err != nil {
		return nil, err
	}
	if e.Target.BaseURL.Scheme == "https" {
		l.tls, l.warmed = e.Target.TLSFor(), make(chan net.Conn, 1)
	}
	l.setClients(reuse)
	// Every request to the target's API passes the gate.
	e.gate.gated(l.client)
	e.gate.gated(l.fresh)
	return l, nil
}

// CleanLanes are the clean lanes of every instance, the first's first.
func (e *Env) CleanLanes() []*Lane { return e.cleans }

// FaultyLanes are the faulty lanes of every instance.
func (e *Env) FaultyLanes() []*Lane { return e.faults }

// Close stops the proxies (the target is closed by its owner).
func (e *Env) Close() error {
	for _, l := range slices.Concat(e.cleans, e.faults) {
		l.client.CloseIdleConnections()
		l.fresh.CloseIdleConnections()
		select {
		case c := <-l.warmed: // nil channel for http://: never ready
			c.Close()
		default:
		}
	}
	if e.liftMemory != nil {
		e.liftMemory()
		e.liftMemory = nil
	}
	return e.proxies.close()
}

// Sent is how many requests the run has sent (or reserved) so far.
func (e *Env) Sent() int { return int(e.gate.used.Load()) }

// Refused is how many sends the budget refused so far: a check that met
// one could not send what it needed, so its verdict cannot be trusted.
func (e *Env) Refused() int { return int(e.gate.refused.Load()) }

// ClearFaults removes every fault from every lane.
func (e *Env) ClearFaults() { e.proxies.resetAll() }

// NewKey makes a fresh idempotency key in the target's declared format,
// carrying the run id where the format allows (so a shared environment's
// operators can tell this run's keys apart).
func (e *Env) NewKey() string { return e.Target.Key.NewRunKey(e.RunID) }

// CreateLatency is how long the target took to answer the preflight's
// create (0: no preflight ran): what a search expects a create to cost.
func (e *Env) CreateLatency() time.Duration { return time.Duration(e.createLatency.Load()) }

// NewMarker makes a marker unique to this run and scenario, so the oracle
// counts only the resources this scenario created.
func (e *Env) NewMarker(scope string) string {
	m := targets.NewMarker(e.RunID, scope, e.markers.Add(1))
	e.mu.Lock()
	e.made = append(e.made, m)
	e.owner[m] = e
	e.mu.Unlock()
	return m
}

// Markers lists every marker the run handed out, in order.
func (e *Env) Markers() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.made...)
}

// Cleanup runs the target's cleanup step (if it has one) over every
// marker of the run. Its requests pass the same gate as the suite's. A
// command runs once, over them all; a delete finds each operation's
// resources with that operation's oracle.
func (e *Env) Cleanup(ctx context.Context) (targets.CleanupResult, error) {
	if c := e.Target.Cleanup; c == nil || c.Command != "" {
		return e.Target.RunCleanup(ctx, e.RunID, e.Markers(), e.observe)
	}
	// One bound for all the operations' deletes together, so a file of
	// many operations holds the run's end no longer than one.
	ctx, cancel := context.WithTimeout(ctx, e.Target.Cleanup.Timeout)
	defer cancel()
	var total targets.CleanupResult
	for _, o := range e.owners() {
		res, err := o.Target.RunCleanup(ctx, e.RunID, e.markersOf(o), o.observe)
		total.Deleted += res.Deleted
		total.Failed = append(total.Failed, res.Failed...)
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// owners are the Envs markers were made for, in the order of their
// first marker.
func (e *Env) owners() []*Env {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []*Env
	for _, m := range e.made {
		if o := e.owner[m]; !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	return out
}

// markersOf lists the markers made for o, in order.
func (e *Env) markersOf(o *Env) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, m := range e.made {
		if e.owner[m] == o {
			out = append(out, m)
		}
	}
	return out
}

// Body renders the target's create body for a marker and variant.
func (e *Env) Body(marker, variant string) ([]byte, error) {
	return e.Target.Body(targets.Payload{Marker: marker, Variant: variant})
}

// Observe asks the oracle about a marker.
func (e *Env) Observe(ctx context.Context, marker string) (targets.Observation, error) {
	ctx, cancel := context.WithTimeout(ctx, e.Settings.RequestTimeout)
	defer cancel()
	return e.observe(ctx, marker)
}

func (e *Env) observe(ctx context.Context, marker string) (targets.Observation, error) {
	if o, ok := e.Target.Oracle.(targets.IDOracle); ok {
		e.mu.Lock()
		ids := append([]string(nil), e.named[marker]...)
		e.mu.Unlock()
		return o.ObserveIDs(ctx, marker, ids)
	}
	return e.Target.Oracle.Observe(ctx, marker)
}

// notePayload remembers which marker a payload carries.
func (e *Env) notePayload(digest string, body []byte) {
	m := targets.MarkerIn.Find(body)
	if m == nil {
		return
	}
	e.mu.Lock()
	e.payloads[digest] = string(m)
	e.mu.Unlock()
}

// noteID remembers a resource id an answer named for a payload's marker.
func (e *Env) noteID(digest, id string) {
	if id == "" {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	m, ok := e.payloads[digest]
	if ok && !slices.Contains(e.named[m], id) {
		e.named[m] = append(e.named[m], id)
	}
}

// Reading is what the oracle said about marker, as checks record it.
func (e *Env) Reading(marker, when string, obs targets.Observation) check.Reading {
	return check.Reading{Marker: marker, Count: obs.Count, IDs: obs.IDs, IDsOmitted: obs.Omitted, Oracle: e.Target.Oracle.Kind(), When: when}
}

// CommitPoll is how often AwaitCommit reads the oracle.
const CommitPoll = 5 * time.Millisecond

// AwaitCommit polls the oracle until it shows at least one resource for
// marker, or the commit wait passes. It is how a scenario knows the
// server finished a request whose answer the harness made sure to lose.
func (e *Env) AwaitCommit(ctx context.Context, marker string) (targets.Observation, error) {
	ctx, cancel := context.WithTimeout(ctx, e.Settings.CommitWait)
	defer cancel()
	tick := time.NewTicker(CommitPoll)
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
		if unreachable(err) {
			return fmt.Errorf("target %s is not reachable: %w", e.Target.BaseURL.Redacted(), err)
		}
		// It answered: what went wrong is in the answer or the file (a
		// setup answer's value that no header can carry, say).
		return fmt.Errorf("target %s: the oracle's first read failed: %w", e.Target.BaseURL.Redacted(), err)
	}
	return nil
}

// unreachable says whether err is a failure to reach the target at all:
// no connection, a name that does not resolve, no answer in time.
func unreachable(err error) bool {
	var op *net.OpError
	var dns *net.DNSError
	return errors.As(err, &op) || errors.As(err, &dns) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || os.IsTimeout(err)
}

// NewRunID names a run: eight hex digits, in every marker and key the
// run sends, and in its reports (a run that never reached an Env too).
func NewRunID() string {
	b := make([]byte, 4)
	rand.Read(b)
	return hex.EncodeToString(b)
}
