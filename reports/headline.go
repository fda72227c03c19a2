package reports

import (
	"fmt"
	"slices"
	"strings"

	"github.com/idemspec/idemspec/harness/check"
)

// Headline says how the run went in one sentence, the same in every
// format and on the console. It never says "all passed" over a WARN: a
// run that passes with warnings says so and counts them.
func (r Report) Headline() string {
	s := r.Summary
	ran := s.Total - s.Skip
	skipped := ""
	if s.Skip > 0 {
		skipped = fmt.Sprintf(", %d skipped", s.Skip)
	}
	switch r.Verdict() {
	case "PASS":
		if ran == 0 {
			return fmt.Sprintf("no check ran: all %d skipped", s.Total)
		}
		// Never "all passed" over a WARN or an accepted finding.
		var with []string
		if s.Warn > 0 {
			with = append(with, warnings(s.Warn))
		}
		if s.Accepted > 0 {
			with = append(with, accepted(s.Accepted))
		}
		if len(with) > 0 {
			return fmt.Sprintf("passed, with %s: %d of %d %s passed%s", strings.Join(with, " and "), s.Pass, ran, plural(ran, "check", "checks"), skipped)
		}
		return fmt.Sprintf("all %d %s passed%s", ran, plural(ran, "check", "checks"), skipped)
	case "FAIL":
		n := s.Fail
		if r.Run.Strict {
			n += s.Warn // --strict: a WARN fails the run
		}
		var parts []string
		if n > 0 || len(r.AcceptanceFailures()) == 0 {
			parts = append(parts, fmt.Sprintf("%d of %d %s failed", n, s.Total, plural(s.Total, "check", "checks")))
		}
		if bad := r.acceptanceProblems(); bad != "" {
			parts = append(parts, bad)
		}
		line := strings.Join(parts, "; ")
		if s.Warn > 0 && !r.Run.Strict {
			line += ", with " + warnings(s.Warn)
		}
		if s.Accepted > 0 {
			line += ", " + accepted(s.Accepted)
		}
		return line
	case "INCOMPLETE":
		return "the run was interrupted: " + r.Run.Incomplete
	}
	return fmt.Sprintf("the harness could not run %d %s", s.Error, plural(s.Error, "check", "checks"))
}

func warnings(n int) string { return fmt.Sprintf("%d %s", n, plural(n, "warning", "warnings")) }

func accepted(n int) string {
	return fmt.Sprintf("%d accepted %s", n, plural(n, "finding", "findings"))
}

// acceptanceProblems counts the accepted-findings entries that fail the
// run: "2 accepted findings expired (S1, S4), 1 stale (remove it: T1
// passes now)".
func (r Report) acceptanceProblems() string {
	if r.Acceptance == nil {
		return ""
	}
	var expired, stale []string
	for _, e := range r.Acceptance.Entries {
		switch e.State {
		case AcceptExpired:
			expired = append(expired, e.label())
		case AcceptStale:
			stale = append(stale, e.label())
		}
	}
	var parts []string
	if len(expired) > 0 {
		parts = append(parts, fmt.Sprintf("%s expired (%s)", plural(len(expired), "an accepted finding", fmt.Sprintf("%d accepted findings", len(expired))), strings.Join(expired, ", ")))
	}
	if len(stale) > 0 {
		parts = append(parts, fmt.Sprintf("%s (remove %s: %s %s now)", plural(len(stale), "a stale accepted finding", fmt.Sprintf("%d stale accepted findings", len(stale))),
			plural(len(stale), "it", "them"), strings.Join(stale, ", "), plural(len(stale), "passes", "pass")))
	}
	return strings.Join(parts, ", ")
}

// findingOrder is the order the reports expand the checks in: what
// broke first (FAIL), then what could not be judged (ERROR), what is
// worth a warning (WARN), what broke but is accepted for now (ACCEPTED),
// what was not run (SKIP), and last what passed.
var findingOrder = []check.Status{check.FAIL, check.ERROR, check.WARN, check.ACCEPTED, check.SKIP, check.PASS}

// byFinding sorts checks (in catalogue order) into findingOrder, each
// group kept in catalogue order.
func byFinding(cs []CheckResult) []CheckResult {
	out := slices.Clone(cs)
	rank := func(s check.Status) int {
		if i := slices.Index(findingOrder, s); i >= 0 {
			return i
		}
		return len(findingOrder)
	}
	slices.SortStableFunc(out, func(a, b CheckResult) int { return rank(a.Verdict) - rank(b.Verdict) })
	return out
}

// keyLabels shows the keys of one history table by the part that tells
// them apart. Keys of one run share its id as their first characters,
// so a cut to the first eight shows the same on every row: the labels
// drop what all of them share (for a single key, the run id) up to a
// separator, and keep a dozen characters of the rest. The whole key is
// the HTML cell's title and in report.json.
func keyLabels(runID string, keys []string) func(string) string {
	var distinct []string
	for _, k := range keys {
		if k != "" && !slices.Contains(distinct, k) {
			distinct = append(distinct, k)
		}
	}
	shared := runID
	if len(distinct) > 1 {
		shared = distinct[0]
		for _, k := range distinct[1:] {
			n := 0
			for n < len(shared) && n < len(k) && shared[n] == k[n] {
				n++
			}
			shared = shared[:n]
		}
		// Back to a separator, so a label starts on a word of the key.
		if i := strings.LastIndexAny(shared, "-_:."); i >= 0 {
			shared = shared[:i+1]
		}
	}
	return func(k string) string {
		if k == "" {
			return "(none)"
		}
		rest := k
		if shared != "" && strings.HasPrefix(k, shared) && len(k) > len(shared) {
			rest = strings.TrimLeft(k[len(shared):], "-_:.")
			if rest == "" {
				rest = k[len(shared):]
			}
			rest = "…" + rest
		}
		if r := []rune(rest); len(r) > 13 {
			return string(r[:13]) + "…"
		}
		return rest
	}
}
