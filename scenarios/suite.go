package scenarios

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/reports"
	"github.com/idemspec/idemspec/scenarios/property"
)

// specTimeout bounds one spec, whatever the target does.
const specTimeout = 2 * time.Minute

// Options configure how the suite reports.
type Options struct {
	// Observer follows the run as it goes (nil: nobody watches).
	Observer Observer
	// Strict makes a WARN fail its spec, as h2spec's strict mode does.
	Strict bool
	// Property sets how hard the properties (P1, P2) search; zero fields
	// take property.DefaultConfig's values.
	Property property.Config
	// Tuning tunes single checks (S1's repeats, S6's retry policy); the
	// zero value is DefaultTuning.
	Tuning Tuning
	// Client is client mode: the report and the progress lines hold the
	// client checks only (with Workflow, the workflow shape's); otherwise
	// they hold every check but those.
	Client, Workflow bool
	// Shard is the slice of the suite this run runs (nil: all of it);
	// the specs of the other shards' checks are not even defined.
	Shard *reports.Shard
	// Seed is the run's random seed (--seed, or the clock's): S5b's
	// crash point and the properties' sequences are drawn from it. The
	// front end hands Ginkgo the same seed, which orders the checks by
	// it and stores it in the report, so one seed replays them all.
	Seed uint64
}

// Inputs are what the runner hands each server check's run beside its
// Env, made once from the run's Options: the seed every draw comes from,
// how the checks are tuned, how hard the properties search. A check reads
// them here, never from Ginkgo or the package, so a reader can follow
// the seed from --seed to S5b's crash point and the properties' draws.
type Inputs struct {
	Seed     uint64
	Tuning   Tuning // DefaultTuning where Options left it zero
	Property property.Config
	// Observer follows the property search (nil: nobody watches); Log
	// takes the search's lines (Ginkgo's log in a run).
	Observer Observer
	Log      io.Writer
	// search is the properties' one search on this Env, which P1 and
	// P2 share.
	search *sharedSearch
}

// inputs are the checks' Inputs for a run with options o.
func (o Options) inputs() Inputs {
	tu := o.Tuning
	if tu.Repeats == 0 {
		tu = DefaultTuning()
	}
	return Inputs{Seed: o.Seed, Tuning: tu, Property: o.Property, Observer: o.Observer, Log: io.Discard}
}

// ClientGroup is the group, and so the label, of the client checks, and
// WorkflowGroup that of the workflow shape's: client mode's checks,
// which `idemspec run` leaves out.
const (
	ClientGroup   = "client"
	WorkflowGroup = "workflow"
)

// Span names a group's checks by their first and last IDs, "C1-C7", as
// the registry holds them ("" for a group with none).
func Span(group string) string {
	var ids []string
	for _, c := range Checks() {
		if c.Group == group {
			ids = append(ids, c.ID)
		}
	}
	switch len(ids) {
	case 0:
		return ""
	case 1:
		return ids[0]
	}
	return ids[0] + "-" + ids[len(ids)-1]
}

// ofClientMode reports whether a check of group runs in client mode.
func ofClientMode(group string) bool { return group == ClientGroup || group == WorkflowGroup }

// shows reports whether a check of group belongs to the run's mode: the
// server checks, the client checks, or the workflow shape's.
func (o Options) shows(group string) bool {
	switch {
	case !o.Client:
		return !ofClientMode(group)
	case o.Workflow:
		return group == WorkflowGroup
	}
	return group == ClientGroup
}

// inMode reports whether a spec belongs to the run's mode.
func inMode(r types.SpecReport, o Options) bool {
	c, _ := check.Get(checkLabel(r.Labels()))
	return o.shows(c.Group)
}

// labels tags a spec with its check's ID, level and group, so
// --label-filter can pick "S4", "MUST" or "core", and with its
// operation's name (operation:NAME) when the target file names them.
func labels(c check.Entry, operation string) Labels {
	if operation != "" {
		return Label(c.ID, string(c.Level), c.Group, "scenario", operationLabel+operation)
	}
	return Label(c.ID, string(c.Level), c.Group, "scenario")
}

// operationLabel prefixes the label that names a spec's operation.
const operationLabel = "operation:"

// operationLabelOf is the operation a spec's labels name, or "".
func operationLabelOf(labels []string) string {
	for _, l := range labels {
		if op, ok := strings.CutPrefix(l, operationLabel); ok {
			return op
		}
	}
	return ""
}

// serverSpec runs a server check in its spec: it gives the check's Run
// the Env and a history, and returns the verdict and evidence; errors
// become ERROR verdicts, and a target the check cannot run against a
// SKIP with the check's one reason.
func serverSpec(c *Check, e *harness.Env, in Inputs) func(SpecContext) check.Result {
	return func(ctx SpecContext) check.Result {
		if e == nil {
			Fail("scenarios.Use was not called: no target")
		}
		if in.Seed == 0 {
			// Ginkgo's seed is never 0: the front end handed none.
			Fail("scenarios.Use was given no Options.Seed: the checks' draws would not replay from the report's seed")
		}
		if why := c.Skips(e.Target); why != "" {
			return check.Result{Verdict: check.Skip(c.ID, why)}
		}
		h := &history.History{}
		var ev check.Evidence
		start, refused := time.Now(), e.Refused()
		v, err := c.Run(ctx, &onEnv{e: e, in: in, h: h, ev: &ev})
		e.ClearFaults()
		if err != nil {
			v = check.Errored(c.ID, err)
		}
		if e.Refused() > refused && v.Status != check.SKIP {
			v = check.Errored(c.ID, fmt.Errorf("the request budget (%d) ran out: the check could not send what it needed", e.Settings.Limits.Budget))
		}
		ev.History = h.Exchanges()
		ev.Elapsed = time.Since(start)
		return check.Result{Verdict: v, Evidence: ev}
	}
}

// reading asks the oracle about marker and records what it said.
func reading(ctx context.Context, e *harness.Env, ev *check.Evidence, marker, when string) (check.Reading, error) {
	r, err := observe(ctx, e, marker, when)
	if err == nil {
		ev.Readings = append(ev.Readings, r)
	}
	return r, err
}

// observe asks the oracle about marker.
func observe(ctx context.Context, e *harness.Env, marker, when string) (check.Reading, error) {
	obs, err := e.Observe(ctx, marker)
	if err != nil {
		return check.Reading{}, fmt.Errorf("oracle: %w", err)
	}
	return e.Reading(marker, when, obs), nil
}
