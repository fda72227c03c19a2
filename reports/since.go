package reports

import (
	"slices"
	"time"

	"github.com/idemspec/idemspec/harness/check"
)

// Since is what changed from a previous run of the same suite
// (--previous report.json): the findings this run has that the previous
// did not, those the previous had that now pass, and those both have.
// A finding is a FAIL, WARN or ACCEPTED (an accepted finding is still
// one), each named by its label (S3, or S3 [refund]).
type Since struct {
	Run          string    `json:"run"`
	Started      time.Time `json:"started"`
	NewlyFailing []string  `json:"newly_failing"`
	Fixed        []string  `json:"fixed"`
	StillFailing []string  `json:"still_failing"`
}

// finding says whether a verdict is a broken check.
func finding(s check.Status) bool {
	return s == check.FAIL || s == check.WARN || s == check.ACCEPTED
}

// Changes compares r with the previous run's report: a check that broke
// now and did not (it passed, was skipped, or was not run) is newly
// failing; one that broke then and passes now is fixed; one that breaks
// in both is still failing. A check that broke then and was not judged
// now (SKIP, ERROR, not run) is in none of the three.
func Changes(previous, r Report) *Since {
	s := &Since{Run: previous.Run.ID, Started: previous.Run.Started, NewlyFailing: []string{}, Fixed: []string{}, StillFailing: []string{}}
	before := map[string]check.Status{}
	for _, c := range previous.Checks {
		before[c.Label()] = c.Verdict
	}
	for _, c := range r.Checks {
		was, ran := before[c.Label()]
		switch {
		case finding(c.Verdict) && ran && finding(was):
			s.StillFailing = append(s.StillFailing, c.Label())
		case finding(c.Verdict):
			s.NewlyFailing = append(s.NewlyFailing, c.Label())
		case c.Verdict == check.PASS && ran && finding(was):
			s.Fixed = append(s.Fixed, c.Label())
		}
	}
	for _, l := range [][]string{s.NewlyFailing, s.Fixed, s.StillFailing} {
		slices.SortStableFunc(l, check.CompareID)
	}
	return s
}
