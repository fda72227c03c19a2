package check

import (
	"strings"
	"time"

	"github.com/idemspec/idemspec/harness/history"
)

// Status is a check's verdict.
type Status string

const (
	PASS  Status = "PASS"
	FAIL  Status = "FAIL"  // a MUST broken
	WARN  Status = "WARN"  // a SHOULD or MAY broken; fails the run only with --strict
	SKIP  Status = "SKIP"  // the target lacks a capability the check needs
	ERROR Status = "ERROR" // the harness could not run the check
	// ACCEPTED is a FAIL or WARN the run's accepted-findings file lists,
	// in date: reported with the entry's reason, it fails nothing. No
	// judge returns it; the reports make it (reports.Accept).
	ACCEPTED Status = "ACCEPTED"
)

// Violation is one way the observed behaviour broke the check.
type Violation struct {
	What     string `json:"what"`
	Expected string `json:"expected,omitempty"`
	Observed string `json:"observed,omitempty"`
	Seqs     []int  `json:"seqs,omitempty"` // the exchanges that show it
}

func (v Violation) String() string {
	var detail []string
	if v.Expected != "" {
		detail = append(detail, "expected "+v.Expected)
	}
	if v.Observed != "" {
		detail = append(detail, "observed "+v.Observed)
	}
	if len(detail) == 0 {
		return v.What
	}
	return v.What + " (" + strings.Join(detail, ", ") + ")"
}

// Verdict is the judgement of one check on one run.
type Verdict struct {
	Check      string      `json:"check"`
	Status     Status      `json:"verdict"`
	Reason     string      `json:"reason,omitempty"`
	Violations []Violation `json:"violations,omitempty"`
}

// Judge turns a check's violations into a verdict: none is PASS; any is
// FAIL for a MUST check and WARN for a SHOULD or MAY check.
func Judge(id string, violations ...Violation) Verdict {
	v := Verdict{Check: id, Status: PASS}
	if len(violations) == 0 {
		return v
	}
	v.Violations = violations
	v.Status = FAIL
	if c, ok := Get(id); ok && c.Level != MUST {
		v.Status = WARN
	}
	parts := make([]string, len(violations))
	for i, x := range violations {
		parts[i] = x.String()
	}
	v.Reason = strings.Join(parts, "; ")
	return v
}

// Warned is a WARN whatever the check's level: the target did what it
// declares, but what it declares is worth a warning (a MUST check's
// guarantee that cannot be observed within the harness's bounds).
func Warned(id string, violations ...Violation) Verdict {
	v := Judge(id, violations...)
	if v.Status == FAIL {
		v.Status = WARN
	}
	return v
}

// Skip is the verdict for a check the target cannot support.
func Skip(id, reason string) Verdict { return Verdict{Check: id, Status: SKIP, Reason: reason} }

// Errored is the verdict for a check the harness could not carry out.
func Errored(id string, err error) Verdict {
	return Verdict{Check: id, Status: ERROR, Reason: err.Error()}
}

// Reading is what the oracle said about the resources carrying a marker.
type Reading struct {
	Marker string   `json:"marker"`
	Count  int      `json:"count"`
	IDs    []string `json:"ids,omitempty"` // nil when the oracle counts without listing
	// IDsOmitted is how many more ids the oracle listed than IDs holds
	// (a bounded sample: targets.MaxObservedIDs).
	IDsOmitted int    `json:"ids_omitted,omitempty"`
	Oracle     string `json:"oracle"` // which oracle: "list", "sql", "command"
	When       string `json:"when,omitempty"`
}

// Evidence is what a spec attaches to its verdict for the report.
type Evidence struct {
	History  []history.Exchange `json:"history,omitempty"`
	Readings []Reading          `json:"oracle,omitempty"`
	Bursts   []history.Burst    `json:"bursts,omitempty"`
	Restarts []history.Restart  `json:"restarts,omitempty"`
	Faults   []string           `json:"faults,omitempty"`
	Notes    []string           `json:"notes,omitempty"`
	Tables   []Table            `json:"tables,omitempty"`
	Elapsed  time.Duration      `json:"elapsed_ns,omitempty"`
	// Search is the time of the property search this check's verdict
	// comes from: one search serves P1 and P2, and runs in whichever
	// spec comes first, so both show its time, not the other's 0s.
	Search time.Duration `json:"search_ns,omitempty"`
	// Steps is a property's counterexample, shrunk, one action per step.
	Steps []history.Step `json:"steps,omitempty"`
	// Replay is the command line that runs the counterexample again.
	Replay string `json:"replay,omitempty"`
}

// Table is evidence laid out in rows, such as K3's table of which
// variations a target treats as "the same request".
type Table struct {
	Title   string     `json:"title"`
	Columns []string   `json:"columns"`
	Rows    [][]string `json:"rows"`
}

// Result is a verdict with its evidence: what each spec reports.
type Result struct {
	Verdict  Verdict  `json:"verdict"`
	Evidence Evidence `json:"evidence"`
}
