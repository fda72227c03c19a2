package scenarios

import (
	"context"
	"fmt"
	"strings"
	"sync"
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

// EntryName is the report entry that carries a spec's check.Result.
const EntryName = "idemspec"

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
}

// clientGroup is the label of the client checks (C1..C7's group), and
// workflowGroup that of the workflow shape's (W1..W5's): client mode's
// checks, which `idemspec run` leaves out.
const (
	clientGroup   = "client"
	workflowGroup = "workflow"
)

// ofClientMode reports whether a check of group runs in client mode.
func ofClientMode(group string) bool { return group == clientGroup || group == workflowGroup }

// shows reports whether a check of group belongs to the run's mode: the
// server checks, the client checks, or the workflow shape's.
func (o Options) shows(group string) bool {
	switch {
	case !o.Client:
		return !ofClientMode(group)
	case o.Workflow:
		return group == workflowGroup
	}
	return group == clientGroup
}

// inMode reports whether a spec belongs to the run's mode.
func inMode(r types.SpecReport, o Options) bool {
	c, _ := check.Get(checkLabel(r.Labels()))
	return o.shows(c.Group)
}

// suite is the one run the specs serve. Ginkgo registers the specs when
// the package loads, so what they drive is set here before RunSpecs (Use,
// UseClient) and read by each spec; it is the package's only state.
var suite struct {
	sync.Mutex
	env    *harness.Env
	opts   Options
	client *ClientEnv // client mode
	// search is the properties' one search per operation, which P1 and
	// P2 share.
	search map[*harness.Env]*sharedSearch
	report types.Report
	// selected says which checks the label filter selected (set when
	// the suite begins).
	selected func(id string) bool
}

// Use sets the harness the specs drive. Call it before RunSpecs.
func Use(e *harness.Env, o Options) {
	suite.Lock()
	defer suite.Unlock()
	suite.env, suite.opts = e, o
}

// LastReport is the Ginkgo report of the last run, for the reports package.
func LastReport() types.Report {
	suite.Lock()
	defer suite.Unlock()
	return suite.report
}

func current() (*harness.Env, Options) {
	suite.Lock()
	defer suite.Unlock()
	return suite.env, suite.opts
}

var _ = ReportAfterSuite("idemspec", func(r types.Report) {
	suite.Lock()
	defer suite.Unlock()
	// The other mode's specs are not this run's checks, not even skipped
	// ones: they stay out of its reports.
	var specs types.SpecReports
	for _, s := range r.SpecReports {
		if s.LeafNodeType != types.NodeTypeIt || inMode(s, suite.opts) {
			specs = append(specs, s)
		}
	}
	r.SpecReports = specs
	suite.report = r
})

// ResultOf reads a spec's verdict. A spec that failed or panicked
// without one (an assertion in the harness, a timeout) is an ERROR. A
// spec whose body the interrupt cut short judged a truncated history, or
// none: it is a SKIP that says so, on the terminal and in the report
// alike. (One whose body had judged when the interrupt landed in a
// cleanup or report node keeps its verdict.)
func ResultOf(r types.SpecReport) (check.Result, bool) {
	res, ok := resultOf(r)
	if ok && r.State.Is(types.SpecStateInterrupted|types.SpecStateAborted) && (!Judged(r) || r.Failure.FailureNodeType == types.NodeTypeIt) {
		res.Verdict = check.Skip(res.Verdict.Check, "not finished: the run was interrupted while it ran")
	}
	return res, ok
}

// Judged reports whether a spec attached a verdict of its own (a check
// that skipped for a missing capability did).
func Judged(r types.SpecReport) bool {
	for _, e := range r.ReportEntries {
		if e.Name == EntryName {
			return true
		}
	}
	return false
}

func resultOf(r types.SpecReport) (check.Result, bool) {
	for _, e := range r.ReportEntries {
		if e.Name != EntryName {
			continue
		}
		if res, ok := e.GetRawValue().(check.Result); ok {
			return res, true
		}
	}
	id := checkLabel(r.Labels())
	if id == "" {
		return check.Result{}, false
	}
	switch r.State {
	case types.SpecStateSkipped, types.SpecStatePending:
		return check.Result{Verdict: check.Skip(id, "not selected")}, true
	case types.SpecStatePassed:
		return check.Result{Verdict: check.Errored(id, fmt.Errorf("the spec recorded no verdict"))}, true
	}
	return check.Result{Verdict: check.Errored(id, fmt.Errorf("%s: %s", r.State, r.Failure.Message))}, true
}

func checkLabel(labels []string) string {
	for _, l := range labels {
		if _, ok := check.Get(l); ok {
			return l
		}
	}
	return ""
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

// conclude attaches the result and makes the spec's Ginkgo state agree
// with the verdict.
func conclude(res check.Result) {
	_, o := current()
	AddReportEntry(EntryName, res, ReportEntryVisibilityNever)
	v := res.Verdict
	switch {
	case v.Status == check.FAIL, v.Status == check.ERROR:
		Fail(fmt.Sprintf("%s %s: %s", v.Status, v.Check, v.Reason))
	case v.Status == check.WARN && o.Strict:
		Fail(fmt.Sprintf("WARN %s (strict): %s", v.Check, v.Reason))
	case v.Status == check.SKIP:
		Skip(v.Reason)
	}
}

// serverSpec is a server check's spec body: it gives the check's Run the Env and
// a history, and attaches the verdict and evidence; errors become ERROR
// verdicts, and a target the check cannot run against a SKIP with the
// check's one reason.
func serverSpec(c *Check, e *harness.Env) func(SpecContext) {
	return func(ctx SpecContext) {
		if e == nil {
			Fail("scenarios.Use was not called: no target")
		}
		if why := c.Skips(e.Target); why != "" {
			conclude(check.Result{Verdict: check.Skip(c.ID, why)})
			return
		}
		h := &history.History{}
		var ev check.Evidence
		start, refused := time.Now(), e.Refused()
		v, err := c.Run(ctx, &onEnv{e: e, h: h, ev: &ev})
		e.ClearFaults()
		if err != nil {
			v = check.Errored(c.ID, err)
		}
		if e.Refused() > refused && v.Status != check.SKIP {
			v = check.Errored(c.ID, fmt.Errorf("the request budget (%d) ran out: the check could not send what it needed", e.Settings.Limits.Budget))
		}
		ev.History = h.Exchanges()
		ev.Elapsed = time.Since(start)
		conclude(check.Result{Verdict: v, Evidence: ev})
	}
}

// reading asks the oracle about marker and records what it said.
func reading(ctx context.Context, e *harness.Env, ev *check.Evidence, marker, when string) (check.Reading, error) {
	obs, err := e.Observe(ctx, marker)
	if err != nil {
		return check.Reading{}, fmt.Errorf("oracle: %w", err)
	}
	r := e.Reading(marker, when, obs)
	ev.Readings = append(ev.Readings, r)
	return r, nil
}
