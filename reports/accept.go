package reports

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/idemspec/idemspec/harness/check"
)

// An accepted-findings file (--accept FILE) lists the FAILs and WARNs a
// team knows of and cannot fix this week, each with a reason and a date:
// an accepted finding is reported as ACCEPTED and does not fail the run
// until its date is past. An entry whose check now passes fails the run
// as stale, so the list only shrinks; as the MCP conformance suite's
// expected-failures file and linters' baselines do.

// Acceptance is one entry of the file.
type Acceptance struct {
	Check string `json:"check"`
	// Operation narrows the entry to one operation of a target file with
	// operations: ("": every operation the check ran on).
	Operation string `json:"operation,omitempty"`
	Reason    string `json:"reason"`
	// Until is the last day (UTC, YYYY-MM-DD) the finding is accepted.
	Until string `json:"until"`
	// Line is the entry's line in the file, for messages.
	Line int `json:"line,omitempty"`
}

// What became of an entry in a run.
const (
	AcceptApplied = "applied" // it turned a FAIL or WARN into ACCEPTED
	AcceptExpired = "expired" // its date is past: the finding fails again
	AcceptStale   = "stale"   // its check passes now: remove it
	AcceptUnused  = "unused"  // its check did not run, or was not judged
)

// AcceptedEntry is an entry as a run used it.
type AcceptedEntry struct {
	Acceptance
	State string `json:"state"`
	// Message says what to do about an expired or stale entry.
	Message string `json:"message,omitempty"`
}

// AcceptanceRun is what the run made of the file.
type AcceptanceRun struct {
	File    string          `json:"file"`
	Entries []AcceptedEntry `json:"entries"`
}

// Accepted is what a check's ACCEPTED verdict replaced, and why.
type Accepted struct {
	Was    check.Status `json:"was"`
	Reason string       `json:"reason"`
	Until  string       `json:"until"`
	Line   int          `json:"line,omitempty"`
}

// dateLayout is how an until date is written.
const dateLayout = "2006-01-02"

// AcceptanceError is a refused accepted-findings file: every problem,
// each naming the file, the line and the field.
type AcceptanceError struct{ Problems []string }

func (e *AcceptanceError) Error() string { return strings.Join(e.Problems, "\n") }

// LoadAcceptances reads an accepted-findings file: a YAML list of
// entries with check, operation (optional), reason and until. An
// unknown check, a missing reason, a date that is not YYYY-MM-DD, an
// unknown field or an operation not in operations (when operations is
// not nil) is refused with the file, the line and the field.
func LoadAcceptances(path string, operations []string) ([]Acceptance, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("accepted findings: %w", err)
	}
	return ParseAcceptances(path, b, operations)
}

// ParseAcceptances is LoadAcceptances over the file's bytes.
func ParseAcceptances(name string, data []byte, operations []string) ([]Acceptance, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, &AcceptanceError{[]string{fmt.Sprintf("%s: %s", name, strings.TrimPrefix(err.Error(), "yaml: "))}}
	}
	if len(root.Content) == 0 {
		return nil, nil // an empty file accepts nothing
	}
	list := root.Content[0]
	if list.Kind != yaml.SequenceNode {
		return nil, &AcceptanceError{[]string{fmt.Sprintf("%s:%d: a list of entries (- check: S3, reason: ..., until: YYYY-MM-DD), not a %s", name, list.Line, kindName(list))}}
	}
	var out []Acceptance
	type problem struct {
		line int
		text string
	}
	var problems []problem
	bad := func(line int, field, format string, args ...any) {
		problems = append(problems, problem{line, fmt.Sprintf("%s:%d: %s: %s", name, line, field, fmt.Sprintf(format, args...))})
	}
	for i, n := range list.Content {
		at := fmt.Sprintf("[%d]", i)
		if n.Kind != yaml.MappingNode {
			bad(n.Line, at, "an entry is a mapping with check, reason and until")
			continue
		}
		a := Acceptance{Line: n.Line}
		seen := map[string]int{}
		for k := 0; k+1 < len(n.Content); k += 2 {
			key, val := n.Content[k], n.Content[k+1]
			field := at + "." + key.Value
			if _, dup := seen[key.Value]; dup {
				bad(key.Line, field, "given twice")
				continue
			}
			seen[key.Value] = key.Line
			if val.Kind != yaml.ScalarNode {
				bad(val.Line, field, "want a single value")
				continue
			}
			switch key.Value {
			case "check":
				a.Check = val.Value
			case "operation":
				a.Operation = val.Value
			case "reason":
				a.Reason = strings.TrimSpace(val.Value)
			case "until":
				a.Until = val.Value
			default:
				bad(key.Line, field, "unknown field (an entry has check, operation, reason and until)")
			}
		}
		line := func(f string) int {
			if l, ok := seen[f]; ok {
				return l
			}
			return n.Line
		}
		switch c, ok := check.Get(a.Check); {
		case a.Check == "":
			bad(n.Line, at+".check", "missing: the ID of the check whose finding is accepted")
		case !ok:
			bad(line("check"), at+".check", "no check %q (`idemspec explain` lists them)", a.Check)
		default:
			a.Check = c.ID
		}
		if a.Operation != "" && operations != nil && !slices.Contains(operations, a.Operation) {
			known := "the target has one unnamed operation: leave operation out"
			if names := slices.DeleteFunc(slices.Clone(operations), func(s string) bool { return s == "" }); len(names) > 0 {
				known = "the target's operations are " + strings.Join(names, ", ")
			}
			bad(line("operation"), at+".operation", "no operation %q: %s", a.Operation, known)
		}
		if a.Reason == "" {
			bad(line("reason"), at+".reason", "missing: say why the finding is accepted (a ticket, a plan)")
		}
		if a.Until == "" {
			bad(line("until"), at+".until", "missing: the last day the finding is accepted, YYYY-MM-DD")
		} else if _, err := time.Parse(dateLayout, a.Until); err != nil {
			bad(line("until"), at+".until", "%q is not a date YYYY-MM-DD", a.Until)
		}
		out = append(out, a)
	}
	if len(problems) > 0 {
		slices.SortStableFunc(problems, func(a, b problem) int { return a.line - b.line })
		e := &AcceptanceError{}
		for _, p := range problems {
			e.Problems = append(e.Problems, p.text)
		}
		return nil, e
	}
	return out, nil
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.ScalarNode:
		return "single value"
	}
	return "document"
}

// expired says whether an entry's date is past on day now (its until
// day itself is still accepted).
func (a Acceptance) expired(now time.Time) bool {
	until, err := time.Parse(dateLayout, a.Until)
	if err != nil {
		return true
	}
	return now.UTC().Format(dateLayout) > until.Format(dateLayout)
}

func (a Acceptance) matches(c CheckResult) bool {
	return a.Check == c.ID && (a.Operation == "" || a.Operation == c.Operation)
}

// label names the entry in messages: S3, or S3 of create-order.
func (a Acceptance) label() string {
	if a.Operation == "" {
		return a.Check
	}
	return a.Check + " (operation " + a.Operation + ")"
}

// Accept applies the file's entries to a run's report on day now: a
// FAIL or WARN an entry in date matches becomes ACCEPTED with the
// entry's reason and date; an entry past its date leaves its finding
// as it is and fails the run; an entry whose check passed wherever it
// ran fails the run as stale. The summary is counted again.
func Accept(r Report, file string, list []Acceptance, now time.Time) Report {
	r.Checks = slices.Clone(r.Checks)
	run := &AcceptanceRun{File: file}
	for _, a := range list {
		e := AcceptedEntry{Acceptance: a, State: AcceptUnused}
		passed, judged := 0, 0
		for i := range r.Checks {
			c := &r.Checks[i]
			if !a.matches(*c) {
				continue
			}
			switch c.Verdict {
			case check.PASS:
				passed++
				judged++
			case check.FAIL, check.WARN:
				judged++
				if a.expired(now) {
					e.State = AcceptExpired
					e.Message = fmt.Sprintf("%s:%d: %s was accepted until %s, and it %ss still: fix it, or renew the entry with a new date (%s)", file, a.Line, a.label(), a.Until, c.Verdict, a.Reason)
					continue
				}
				c.Accepted = &Accepted{Was: c.Verdict, Reason: a.Reason, Until: a.Until, Line: a.Line}
				c.Verdict = check.ACCEPTED
				if e.State != AcceptExpired {
					e.State = AcceptApplied
				}
			case check.ACCEPTED:
				judged++ // another entry took it first
			}
		}
		if judged > 0 && passed == judged {
			e.State = AcceptStale
			e.Message = fmt.Sprintf("%s:%d: remove it: %s passes now", file, a.Line, a.label())
		}
		run.Entries = append(run.Entries, e)
	}
	r.Acceptance = run
	r.Summary = summarize(r.Checks)
	return r
}

// AcceptanceFailures are the messages of the entries that fail the run:
// expired ones and stale ones.
func (r Report) AcceptanceFailures() []string {
	if r.Acceptance == nil {
		return nil
	}
	var out []string
	for _, e := range r.Acceptance.Entries {
		if e.State == AcceptExpired || e.State == AcceptStale {
			out = append(out, e.Message)
		}
	}
	return out
}

// WriteAcceptances writes an accepted-findings file that accepts every
// FAIL and WARN of r with reason until the day until, and keeps every
// finding r already reports ACCEPTED with its own reason and date.
func WriteAcceptances(r Report, reason, until string) ([]byte, error) {
	if strings.TrimSpace(reason) == "" {
		return nil, fmt.Errorf("--reason: say why the findings are accepted (a ticket, a plan)")
	}
	if _, err := time.Parse(dateLayout, until); err != nil {
		return nil, fmt.Errorf("--until %q: want a date YYYY-MM-DD, the last day the findings are accepted", until)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Accepted findings of idemspec, from the run %s against %s.\n", oneLine(r.Run.ID), oneLine(r.Target.Name))
	b.WriteString("# idemspec run --accept THIS-FILE reports each as ACCEPTED and does not\n")
	b.WriteString("# fail on it until its date; an entry whose check passes fails the run\n")
	b.WriteString("# until it is removed.\n")
	n := 0
	for _, c := range r.Checks {
		e := Acceptance{Check: c.ID, Operation: c.Operation, Reason: reason, Until: until}
		switch {
		case c.Verdict == check.ACCEPTED && c.Accepted != nil:
			e.Reason, e.Until = c.Accepted.Reason, c.Accepted.Until
		case c.Verdict != check.FAIL && c.Verdict != check.WARN:
			continue
		}
		was := c.Verdict
		if c.Accepted != nil {
			was = c.Accepted.Was
		}
		n++
		fmt.Fprintf(&b, "\n# %s %s: %s\n", was, oneLine(c.Label()), oneLine(c.Title))
		node := yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{entryNode(e)}}
		out, err := yaml.Marshal(&node)
		if err != nil {
			return nil, err
		}
		b.Write(out)
	}
	if n == 0 {
		b.WriteString("\n# The run had no FAIL or WARN: nothing to accept.\n[]\n")
	}
	return b.Bytes(), nil
}

func entryNode(e Acceptance) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode}
	add := func(k, v string) {
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, &yaml.Node{Kind: yaml.ScalarNode, Value: v})
	}
	add("check", e.Check)
	if e.Operation != "" {
		add("operation", e.Operation)
	}
	add("reason", e.Reason)
	add("until", e.Until)
	return m
}

// oneLine keeps a comment on one line.
func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}
