package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/idemspec/idemspec/reports"
	"github.com/idemspec/idemspec/scenarios"
	"github.com/idemspec/idemspec/targets"
)

// printPlan is --dry-run: what the run would do, with nothing sent (a
// target idemspec manages is not even started).
func (f *runFlags) printPlan(stdout, stderr io.Writer, t *targets.Target, shard *reports.Shard) int {
	all, err := scenarios.Plan(t, f.settings, f.tuning, f.property, f.labelFilter)
	if err != nil {
		return fail(stderr, err)
	}
	var plan []scenarios.Planned
	for _, p := range all {
		if scenarios.InShard(shard, p.Operation, p.Check.ID) {
			plan = append(plan, p)
		}
	}
	fmt.Fprintf(stdout, "idemspec dry run: nothing is sent to %s (%s)\n", t.Name, t.Redact(t.BaseURL.Redacted()))
	if shard != nil {
		fmt.Fprintf(stdout, "shard %s: %d of the suite's %d checks\n", shard, len(plan), shard.Checks)
	}
	fmt.Fprintln(stdout)
	w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "CHECK\tREQUESTS\tAT MOST\tRESTARTS\tFAULTS")
	usual := scenarios.PreflightRequests + scenarios.PreflightMarkers*len(t.Setup)
	most, restarts := usual, 0
	fmt.Fprintf(w, "preflight\t%d\t%d\t0\t-\n", usual, most)
	for i, p := range plan {
		if p.Operation != "" && (i == 0 || plan[i-1].Operation != p.Operation) {
			fmt.Fprintf(w, "operation %s\t\t\t\t\n", p.Operation)
		}
		if p.Skip != "" {
			fmt.Fprintf(w, "%s\t-\t-\t-\tskips: %s\n", p.Check.ID, p.Skip)
			continue
		}
		faults := strings.Join(p.Faults, "; ")
		if faults == "" {
			faults = "-"
		}
		if p.Note != "" {
			faults += " (" + p.Note + ")"
		}
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%s\n", p.Check.ID, p.Requests, p.MaxRequests, p.Restarts, faults)
		usual, most, restarts = usual+p.Requests, most+p.MaxRequests, restarts+p.Restarts
	}
	fmt.Fprintf(w, "total\t%d\t%d\t%d\t\n", usual, most, restarts)
	w.Flush()
	switch t.Oracle.Kind() {
	case "list":
		if l, ok := t.Oracle.(*targets.ListOracle); ok && l.Pages != nil {
			fmt.Fprintf(stdout, "\noracle list, paged (next: %s): each oracle read above is one request per page, at most %d\n", l.Pages.Next, l.Pages.Max)
		}
	case "lookup":
		fmt.Fprintf(stdout, "\noracle lookup: each oracle read above is one request per resource id the answers named (the preflight's second: up to %d of the first create's values)\n", targets.MaxIDFieldCandidates)
	case "field":
		fmt.Fprintln(stdout, "\noracle field: each oracle read above is one request for the marker's counter")
	case "sql", "command":
		fmt.Fprintf(stdout, "\noracle %s: the oracle reads above go to the database or the command, not to the API\n", t.Oracle.Kind())
	}
	l := f.settings.Limits
	fmt.Fprintf(stdout, "\nlimits: budget %s, rate %s, concurrency %s\n", orNone(l.Budget > 0, fmt.Sprint(l.Budget)),
		orNone(l.Rate > 0, fmt.Sprintf("%g/s", l.Rate)), orNone(l.Concurrency > 0, fmt.Sprint(l.Concurrency)))
	if l.Budget > 0 && l.Budget < most {
		fmt.Fprintf(stdout, "the budget is below the most the checks may send: a check that runs out ends in ERROR\n")
	}
	switch c := t.Cleanup; {
	case c == nil:
		fmt.Fprintln(stdout, "cleanup: none (the resources the run creates stay; see cleanup: in docs/TARGET-FILE.md)")
	case c.Command != "":
		fmt.Fprintf(stdout, "cleanup: the command %q with IDEMSPEC_RUN_ID and IDEMSPEC_MARKERS\n", t.Redact(c.Command))
	default:
		fmt.Fprintln(stdout, "cleanup: one oracle read per marker and one delete per resource")
	}
	return exitOK
}

func orNone(set bool, v string) string {
	if !set {
		return "none"
	}
	return v
}
