package scenarios

import (
	"fmt"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/reports"
)

// NotRun is the report of a run that ended before its first check (each
// operation's, when m names operations): the
// target could not be loaded, started or reached, or the run was
// interrupted while it started. Each check the label filter selected (of
// the run's mode) is an ERROR that names the cause, so CI shows the same
// test cases as on a good day, each saying why it did not run.
func NotRun(m reports.Meta, client bool, started time.Time, cause error) reports.Report {
	keep, err := types.ParseLabelFilter(m.LabelFilter)
	if err != nil {
		keep = func([]string) bool { return true }
	}
	var checks []reports.CheckResult
	ops := m.Operations
	if len(ops) == 0 {
		ops = []string{""}
	}
	for _, op := range ops {
		for _, c := range Checks() {
			if ofClientMode(c.Group) != client || !keep(labels(c.Entry(), op)) || !InShard(m.Shard, op, c.ID) {
				continue
			}
			v := check.Errored(c.ID, fmt.Errorf("not run: %w", cause))
			checks = append(checks, reports.CheckResult{Entry: c.Entry(), Operation: op, Verdict: v.Status, Reason: v.Reason})
		}
	}
	run := reports.Run{Started: started.UTC(), DurationMS: reports.MS(time.Since(started)), Incomplete: cause.Error()}
	return reports.New(run, m, checks)
}
