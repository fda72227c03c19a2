package scenarios

import (
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/scenarios/property"
)

// Observer follows a run as a person watches it; package console shows
// it on a terminal or in a log. Ginkgo runs the checks in the seed's
// order, one at a time: the suite calls Begin once, then Start and
// Finish around each check the label filter selected, and Searching
// while the properties search. The checks the filter left out are
// finished, as SKIP, right after Begin: they never run.
type Observer interface {
	// Begin gives the run's checks in the catalogue's order, and which
	// of them the label filter selected.
	Begin(checks []check.Entry, selected func(id string) bool)
	Start(c check.Entry)
	// Searching says how far the property search has got.
	Searching(detail string)
	// Finish gives a check's verdict and its line: ID, title, the time
	// it took, then the reason and a counterexample on lines of their
	// own, indented, when it did not pass.
	Finish(id string, status check.Status, line string)
}

var _ = ReportBeforeSuite(func(r types.Report) {
	keep, err := selection(r.SuiteConfig.LabelFilter)
	if err != nil {
		return // Ginkgo refuses the filter itself, before any spec
	}
	suite.Lock()
	suite.selected = keep
	o := suite.opts
	suite.Unlock()
	if o.Observer == nil {
		return
	}
	var checks []check.Entry
	for _, op := range operations() {
		for _, c := range Checks() {
			if o.shows(c.Group) && InShard(o.Shard, op, c.ID) {
				checks = append(checks, shown(c.Entry(), op))
			}
		}
	}
	selected := func(id string) bool { return keep(strings.Fields(id)[0]) }
	o.Observer.Begin(checks, selected)
	for _, c := range checks {
		if !selected(c.ID) {
			o.Observer.Finish(c.ID, check.SKIP, line(c, check.Result{Verdict: check.Skip(c.ID, "not selected")}, 0))
		}
	}
})

// operations names the operations the suite drives: "" alone for a
// target with one unnamed operation.
func operations() []string {
	e, _ := current()
	if operationOf(e) == "" {
		return []string{""}
	}
	var out []string
	for _, op := range e.Operations() {
		out = append(out, op.Target.Operation)
	}
	return out
}

// shown is a check as the observer follows it: with the operation's
// name after its ID ("S1 [create-order]"), so each operation's line is
// one of its own.
func shown(c check.Entry, operation string) check.Entry {
	if operation != "" {
		c.ID += " [" + operation + "]"
	}
	return c
}

var _ = ReportBeforeEach(func(r types.SpecReport) {
	if c, o, ok := observed(r); ok {
		o.Observer.Start(c)
	}
})

var _ = ReportAfterEach(func(r types.SpecReport) {
	c, o, ok := observed(r)
	if !ok {
		return
	}
	res, _, ok := concluded(r)
	if !ok {
		return
	}
	o.Observer.Finish(c.ID, res.Verdict.Status, line(c, res, max(r.RunTime, res.Evidence.Search)))
})

// observed is the check of a spec the observer follows: one of the
// run's mode the label filter selected (the others were finished at
// Begin) that runs. A selected spec Ginkgo skips unrun is one an
// interrupt or the run's time limit left out: the run's end lists it
// with the report's verdict, so it is no line of its own here (it was
// selected: "not selected" would be wrong).
func observed(r types.SpecReport) (check.Entry, Options, bool) {
	suite.Lock()
	o, keep := suite.opts, suite.selected
	suite.Unlock()
	id := checkLabel(r.Labels())
	c, known := check.Get(id)
	if o.Observer == nil || !known || !inMode(r, o) || (keep != nil && !keep(id)) {
		return check.Entry{}, o, false
	}
	if _, judged, _ := concluded(r); r.State == types.SpecStateSkipped && !judged {
		return check.Entry{}, o, false
	}
	return shown(c, operationLabelOf(r.Labels())), o, true
}

// concluded is resultOf a spec of the run in progress.
func concluded(r types.SpecReport) (res check.Result, judged, ok bool) {
	suite.Lock()
	defer suite.Unlock()
	return resultOf(r, suite.verdicts)
}

// line is a finished check's line, after its status: the reason and a
// property's counterexample follow, indented, when it did not pass.
func line(c check.Entry, res check.Result, took time.Duration) string {
	const indent = "             "
	v := res.Verdict
	id, operation, _ := strings.Cut(c.ID, " ")
	title := c.Title
	if operation != "" {
		title = operation + " " + title
	}
	s := fmt.Sprintf("%-4s %s (%.2fs)", id, title, took.Seconds())
	if v.Status != check.PASS && v.Reason != "" {
		s += "\n" + indent + v.Reason
	}
	if v.Status != check.PASS {
		if steps := property.Counterexample(res.Evidence, indent); steps != "" {
			s += "\n" + steps
		}
	}
	return s
}

// selection reads a label filter as a test of check IDs.
func selection(labelFilter string) (func(id string) bool, error) {
	keep, err := types.ParseLabelFilter(labelFilter)
	if err != nil {
		return nil, fmt.Errorf("--label-filter %q: %v", labelFilter, err)
	}
	return func(id string) bool {
		c, ok := Lookup(id)
		return ok && keep(labels(c.Entry(), ""))
	}, nil
}
