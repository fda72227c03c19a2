package reports

import (
	"slices"
	"sort"
	"time"

	"github.com/idemspec/idemspec/harness/check"
)

// Schema versions the JSON report; bump it on an incompatible change.
// v2 added the verdict ACCEPTED (checks[].accepted, acceptance,
// summary.accepted); a v1 report is read as it is, since v2 only adds.
const Schema = "idemspec/report/v2"

// SchemaV1 is the schema before ACCEPTED; its reports are still read.
const SchemaV1 = "idemspec/report/v1"

// Report is one run against one target.
type Report struct {
	Schema  string        `json:"schema" redact:"-"`
	Tool    Tool          `json:"tool"`
	Run     Run           `json:"run"`
	Target  Target        `json:"target"`
	Checks  []CheckResult `json:"checks"`
	Summary Summary       `json:"summary"`
	// Tools is the per-tool table of an MCP tool audit.
	Tools []ToolRow `json:"tools,omitempty"`
	// Acceptance is what the run made of its accepted-findings file
	// (--accept), nil without one.
	Acceptance *AcceptanceRun `json:"acceptance,omitempty"`
	// Since is what changed from the previous run (--previous), nil
	// without one.
	Since *Since `json:"since,omitempty"`
}

// Tool names the harness that wrote the report.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Run says when and how the suite ran.
type Run struct {
	ID          string    `json:"id"`
	Seed        int64     `json:"seed"`
	Started     time.Time `json:"started"`
	DurationMS  float64   `json:"duration_ms"`
	LabelFilter string    `json:"label_filter,omitempty"`
	Strict      bool      `json:"strict"`
	// Complete is false when the run was interrupted: the report holds
	// what finished, and Incomplete says why.
	Complete   bool   `json:"complete"`
	Incomplete string `json:"incomplete,omitempty"`
	// Shard is the slice of the suite this run ran (--shard); nil for
	// a whole suite.
	Shard *Shard `json:"shard,omitempty"`
	// Shards are the shards' runs a merged report was made from
	// (`idemspec report --merge`), by index.
	Shards []ShardRun `json:"shards,omitempty"`
}

// Target describes what was tested, with secrets already redacted.
type Target struct {
	Name    string `json:"name"`
	Source  string `json:"source"`
	BaseURL string `json:"base_url"`
	Profile string `json:"profile"`
	Oracle  string `json:"oracle"`
	// OracleEvidence says how strong the oracle's readings are.
	OracleEvidence string `json:"oracle_evidence,omitempty"`
	// Digest is the SHA-256 of the target file as written (empty for a
	// built-in fake): a merge refuses shards of different files.
	Digest string `json:"digest,omitempty"`
}

// CheckResult is one check's verdict with its evidence.
type CheckResult struct {
	check.Entry
	// Subject is what the check judged when it judges several things in
	// one run: the tool, in an MCP tool audit.
	Subject string `json:"subject,omitempty"`
	// Operation is the operation of the target file the check drove
	// (empty for a file with one unnamed operation).
	Operation string `json:"operation,omitempty"`
	// Shard is the index of the shard that ran the check (0: the run
	// was not sharded).
	Shard   int          `json:"shard,omitempty"`
	Verdict check.Status `json:"verdict"`
	// Location is the line of the target file the check is about (the
	// create's path, the key, the process, the tenants), for code
	// scanning; nil without a file (a built-in fake).
	Location *Location `json:"location,omitempty"`
	// Accepted is the finding an ACCEPTED verdict stands for, with the
	// accepted-findings entry's reason and date.
	Accepted   *Accepted         `json:"accepted,omitempty"`
	Reason     string            `json:"reason,omitempty"`
	Violations []check.Violation `json:"violations,omitempty"`
	DurationMS float64           `json:"duration_ms"`
	Evidence   check.Evidence    `json:"evidence"`
}

// Location is a line of the target file.
type Location struct {
	File  string `json:"file"`
	Line  int    `json:"line"`
	Field string `json:"field"` // the dotted field at that line, e.g. create.path
}

// Summary counts verdicts.
type Summary struct {
	Total int `json:"total"`
	Pass  int `json:"pass"`
	Fail  int `json:"fail"`
	Warn  int `json:"warn"`
	Skip  int `json:"skip"`
	Error int `json:"error"`
	// Accepted counts the FAILs and WARNs an accepted-findings entry
	// turned into ACCEPTED.
	Accepted int `json:"accepted"`
	// Text is the run's headline (Report.Headline), as every format
	// says it: "passed, with 2 warnings: ...", never "all passed" over
	// a WARN.
	Text string `json:"text,omitempty"`
}

// Meta is what the Ginkgo report does not know.
type Meta struct {
	Version     string
	RunID       string
	Target      Target
	LabelFilter string
	Strict      bool
	// Operations name the operations of a target file with operations:
	// (for the report of a run that ended before its first check).
	Operations []string
	// Shard is the slice of the suite the run ran (nil: all of it).
	Shard *Shard
	// Redact replaces secrets (values of ${ENV} expansions and secret
	// headers) in every string of the report; nil redacts nothing.
	Redact func(string) string
}

// New builds the report of a run from its checks' results, sorted in
// catalogue order and counted. Secrets are redacted here, once, so no
// writer can leak one.
func New(run Run, m Meta, checks []CheckResult) Report {
	run.LabelFilter, run.Strict = m.LabelFilter, m.Strict
	out := Report{
		Schema: Schema,
		Tool:   Tool{Name: "idemspec", Version: m.Version},
		Run:    run,
		Target: m.Target,
		Checks: append([]CheckResult{}, checks...),
	}
	out.Run.ID = m.RunID
	if m.Shard != nil {
		out.Run.Shard = m.Shard
		for i := range out.Checks {
			out.Checks[i].Shard = m.Shard.Index
		}
	}
	out.sortChecks()
	out.Summary = summarize(out.Checks)
	if m.Redact != nil {
		out = Redact(out, m.Redact)
	}
	return out
}

// Operations names the operations the checks drove, in the order the
// run met them: [""] for a target file with a single create (or no
// checks), so a writer that loops over them writes one section.
func (r Report) Operations() []string {
	var out []string
	for _, c := range r.Checks {
		if !slices.Contains(out, c.Operation) {
			out = append(out, c.Operation)
		}
	}
	if len(out) == 0 {
		return []string{""}
	}
	return out
}

// ChecksOf lists the checks of one operation, in catalogue order.
func (r Report) ChecksOf(operation string) []CheckResult {
	var out []CheckResult
	for _, c := range r.Checks {
		if c.Operation == operation {
			out = append(out, c)
		}
	}
	return out
}

// sortChecks puts the checks in catalogue order, operation by operation
// (in the order the run met them).
func (r *Report) sortChecks() {
	ops := r.Operations()
	sort.SliceStable(r.Checks, func(i, j int) bool {
		a, b := r.Checks[i], r.Checks[j]
		if a.Operation != b.Operation {
			return slices.Index(ops, a.Operation) < slices.Index(ops, b.Operation)
		}
		return check.LessID(a.ID, b.ID)
	})
}

// MatrixRow is one check across the operations: its result in each, in
// the order of Operations (nil where the operation has no such check).
type MatrixRow struct {
	check.Entry
	Cells []*CheckResult
}

// Matrix is the operations × checks table of a target file with
// operations:, nil for a file with a single create.
func (r Report) Matrix() []MatrixRow {
	ops := r.Operations()
	if len(ops) == 1 && ops[0] == "" {
		return nil
	}
	var rows []MatrixRow
	for i := range r.Checks {
		c := &r.Checks[i]
		k := slices.IndexFunc(rows, func(row MatrixRow) bool { return row.ID == c.ID })
		if k < 0 {
			rows = append(rows, MatrixRow{Entry: c.Entry, Cells: make([]*CheckResult, len(ops))})
			k = len(rows) - 1
		}
		rows[k].Cells[slices.Index(ops, c.Operation)] = c
	}
	slices.SortStableFunc(rows, func(a, b MatrixRow) int { return check.CompareID(a.ID, b.ID) })
	return rows
}

func summarize(cs []CheckResult) Summary {
	var s Summary
	for _, c := range cs {
		s.Total++
		switch c.Verdict {
		case check.PASS:
			s.Pass++
		case check.FAIL:
			s.Fail++
		case check.WARN:
			s.Warn++
		case check.SKIP:
			s.Skip++
		case check.ERROR:
			s.Error++
		case check.ACCEPTED:
			s.Accepted++
		}
	}
	return s
}

// ExitCode is what the CLI returns: 1 for a violation (a FAIL, or a WARN
// under strict, or an accepted-findings entry expired or stale), else 2
// when the harness could not run a check or the run was interrupted,
// else 0. An ACCEPTED finding fails nothing.
func (r Report) ExitCode() int {
	switch {
	case r.Summary.Fail > 0 || (r.Run.Strict && r.Summary.Warn > 0) || len(r.AcceptanceFailures()) > 0:
		return 1
	case r.Summary.Error > 0 || !r.Run.Complete:
		return 2
	}
	return 0
}

// Verdict is the run's verdict in one word, as the exit code decides it:
// PASS, FAIL, INCOMPLETE (interrupted) or ERROR.
func (r Report) Verdict() string {
	switch r.ExitCode() {
	case 0:
		return "PASS"
	case 1:
		return "FAIL"
	}
	if !r.Run.Complete && r.Summary.Error == 0 {
		return "INCOMPLETE"
	}
	return "ERROR"
}

// MS is a duration in milliseconds, as the report writes them.
func MS(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
