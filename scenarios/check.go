package scenarios

import (
	"context"
	"fmt"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/scenarios/property"
	"github.com/idemspec/idemspec/targets"
)

// Check is one check of the catalogue, whole: its entry (stable ID, level,
// clause and a title that reads "should ..."), what it needs of a target,
// what it will send, and how it runs. Each lives in a file of its own,
// with the pure judge its Run ends in; the Ginkgo specs, the dry-run plan,
// the skip reasons, `idemspec list` and docs/CONFORMANCE.md are all made
// from this registry, so adding a check is writing one file (and naming
// the mutant that catches it).
type Check struct {
	ID, Title, Clause, Group string
	Level                    check.Level
	// Needs says why the check cannot run against the target ("": it
	// can); nil means every target can run it. The spec skips with this
	// reason, and the dry run says it, from this one rule.
	Needs func(t *targets.Target) string
	// Plan is what the check will send against a conforming target, from
	// the same constants its Run uses (server checks).
	Plan func(p Planning) Planned
	// Run drives the target, records what happened and returns the
	// verdict of the check's pure judge (server checks).
	Run func(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error)
	// Trial runs the client command under test once and judges it (the
	// client checks of `idemspec client`).
	Trial func(ctx context.Context, t *trial) (check.Verdict, error)
	// Timeout bounds the spec (0: specTimeout).
	Timeout time.Duration
}

// Entry is the check's catalogue entry, as reports carry it.
func (c *Check) Entry() check.Entry {
	return check.Entry{ID: c.ID, Title: c.Title, Level: c.Level, Clause: c.Clause, Group: c.Group}
}

// needs is the check's skip reason for t, "" when it can run.
func (c *Check) needs(t *targets.Target) string {
	if c.Needs == nil {
		return ""
	}
	return c.Needs(t)
}

// catalogue holds every check, in the order the files define them.
var catalogue []*Check

// define registers c: in this registry, and its entry in the catalogue
// of verdicts (which panics on a duplicate or malformed entry).
func define(c Check) *Check {
	if (c.Run == nil) == (c.Trial == nil) || (c.Run != nil && c.Plan == nil) {
		panic(fmt.Sprintf("check %s: needs a Run and a Plan, or a Trial", c.ID))
	}
	check.Register(c.Entry())
	catalogue = append(catalogue, &c)
	return &c
}

// Checks lists the catalogue in ID order (S1 < S2 < S10 < T1).
func Checks() []*Check {
	out := slices.Clone(catalogue)
	slices.SortFunc(out, func(a, b *Check) int { return check.CompareID(a.ID, b.ID) })
	return out
}

// Lookup finds a check by ID.
func Lookup(id string) (*Check, bool) {
	i := slices.IndexFunc(catalogue, func(c *Check) bool { return c.ID == id })
	if i < 0 {
		return nil, false
	}
	return catalogue[i], true
}

// The specs: one Describe per group, so Ginkgo randomises the groups'
// order with the seed, and one It per check, from the registry. A target
// with operations gets the whole tree once per operation, each driving
// its own Env: Ginkgo builds the tree when RunSpecs is called, after Use,
// so the operations are known here.
var _ = Describe("idemspec", func() {
	var groups []string
	for _, c := range Checks() {
		if !slices.Contains(groups, c.Group) {
			groups = append(groups, c.Group)
		}
	}
	e, o := current()
	tree := func(e *harness.Env) {
		for _, g := range groups {
			Describe(g, func() {
				for _, c := range Checks() {
					if c.Group != g || !InShard(o.Shard, operationOf(e), c.ID) {
						continue
					}
					timeout := c.Timeout
					if timeout == 0 {
						timeout = specTimeout
					}
					body := trialSpec(c)
					if c.Run != nil {
						body = serverSpec(c, e)
					}
					It(c.Title, labels(c.Entry(), operationOf(e)), SpecTimeout(timeout), body)
				}
			})
		}
	}
	if e == nil || operationOf(e) == "" {
		tree(e)
		return
	}
	for _, op := range e.Operations() {
		Describe(op.Target.Operation, func() { tree(op) })
	}
})

// operationOf is the name of the operation e drives ("": the target
// has one unnamed operation, or no Env in client mode).
func operationOf(e *harness.Env) string {
	if e == nil {
		return ""
	}
	return e.Target.Operation
}

// Planned is what one check will do to the target: what --dry-run prints.
// Requests is the usual count against a conforming target; MaxRequests
// bounds it (the in-flight polls and commit waits are bounded by count
// and time), and a budget below it may end the check with ERROR.
type Planned struct {
	Check check.Entry
	// Operation is the operation the check drives ("": the only one).
	Operation   string
	Requests    int
	MaxRequests int
	Faults      []string
	Restarts    int
	// Markers and MaxMarkers are how many markers the check makes,
	// usually and at most (0 counts as one): an operation with setup
	// sends its setup requests once per marker, and Plan adds them.
	Markers, MaxMarkers int
	Skip                string // why the check will skip, if it will
	// Note says what the counts leave out (a property's shrinking).
	Note string
}

// Planning is what a check's Plan may read: the target, the run's
// settings, the burst size after the concurrency ceiling, the properties'
// configuration and which checks the run selected.
type Planning struct {
	Target   *targets.Target
	Settings harness.Settings
	Burst    int
	Tuning   Tuning
	Property property.Config
	Selected func(id string) bool
}

// commitPolls bounds the oracle polls while the harness waits for a
// commit whose answer it lost.
func commitPolls(s harness.Settings) int { return int(s.CommitWait / harness.CommitPoll) }

// fixed is the plan of a check that sends n requests, whatever happens.
func fixed(n int) func(Planning) Planned {
	return func(Planning) Planned { return Planned{Requests: n, MaxRequests: n} }
}

// keyRequired is the Needs of the checks that send a create without the
// key: it runs unprotected unless the key is declared required.
func keyRequired(t *targets.Target) string {
	if t.Key.Required {
		return ""
	}
	return fmt.Sprintf("the target does not declare the key required (profile %s): a create without it runs unprotected; set key.required: true to test it", t.Profile.Name)
}

// PreflightRequests is what a run sends before any check: an oracle
// read, one create of the harness's own, and an oracle read of that
// create's marker, which create.id_field's value is compared with (a
// lookup oracle asks about up to targets.MaxIDFieldCandidates of the
// answer's values there).
const PreflightRequests = 3

// PreflightMarkers are the preflight's markers: the oracle read's and
// the create's, each with its setup where the operation has one.
const PreflightMarkers = 2

// withSetup adds to a check's plan the setup requests of its markers
// (setup is the operation's count of setup requests).
func withSetup(p Planned, setup int) Planned {
	if setup == 0 || p.MaxRequests == 0 {
		return p // nothing sent: a check that shares another's search
	}
	p.Requests += setup * max(p.Markers, 1)
	p.MaxRequests += setup * max(p.MaxMarkers, p.Markers, 1)
	return p
}

// Plan lists what the selected checks will do to t, without sending
// anything, from each check's own Plan and Needs: once per operation.
func Plan(t *targets.Target, s harness.Settings, tu Tuning, pc property.Config, labelFilter string) ([]Planned, error) {
	keep, err := selection(labelFilter)
	if err != nil {
		return nil, err
	}
	var out []Planned
	for _, op := range t.Each() {
		out = append(out, planOperation(op, s, tu, pc, keep)...)
	}
	return out, nil
}

func planOperation(t *targets.Target, s harness.Settings, tu Tuning, pc property.Config, keep func(id string) bool) []Planned {
	p := Planning{Target: t, Settings: s, Burst: s.BurstSize, Tuning: tu, Property: pc.WithDefaults(), Selected: keep}
	if c := s.Limits.Concurrency; c > 0 && c < p.Burst {
		p.Burst = c
	}
	var out []Planned
	for _, c := range Checks() {
		// Client checks judge a client command (`idemspec client`), never
		// a server target: `idemspec run` does not run them.
		if c.Plan == nil || !p.Selected(c.ID) {
			continue
		}
		planned := Planned{Skip: c.needs(t)}
		if planned.Skip == "" {
			planned = withSetup(c.Plan(p), len(t.Setup))
		}
		planned.Check, planned.Operation = c.Entry(), t.Operation
		out = append(out, planned)
	}
	return out
}
