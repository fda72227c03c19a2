package targets

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Loading a target file goes on past its first error: every validator
// hands what it finds to the document's findings, and the file is
// refused at the end with all of them, in line order, beside its TODOs.
// Someone fixing a drafted file sees everything left to do at once
// rather than one error per attempt.

// FindingKind says what a finding is.
type FindingKind int

const (
	// Problem is an error: the file cannot be run as written.
	Problem FindingKind = iota
	// ToDo is a "# TODO:" comment, as init leaves them.
	ToDo
	// Warning is something questionable but not wrong (a secret too
	// short to redact).
	Warning
	// Unset is a ${VAR} the environment does not set, which validate
	// lets through (LoadOptions.AllowUnset) and run refuses.
	Unset
)

// Finding is one thing loading a target file found, where it stands.
type Finding struct {
	File string
	Line int // 0: the file as a whole
	// Field is the dotted path of the field (operations[1].create.path);
	// "" when the finding is not about one field.
	Field   string
	Kind    FindingKind
	Message string
}

// Error is the finding as it is printed: file:line: field: message.
func (f Finding) Error() string {
	var b strings.Builder
	b.WriteString(f.File)
	if f.Line > 0 {
		fmt.Fprintf(&b, ":%d", f.Line)
	}
	if f.Kind == ToDo {
		b.WriteString(": TODO")
	}
	if f.Field != "" {
		b.WriteString(": " + f.Field)
	}
	return b.String() + ": " + f.Message
}

// FileError is a target file's refusal: every error it holds, with its
// TODOs, warnings and unset variables, in line order. Its Error is the
// errors, one a line.
type FileError struct {
	Findings []Finding
}

func (e *FileError) Error() string {
	var lines []string
	for _, f := range e.Findings {
		if f.Kind == Problem {
			lines = append(lines, f.Error())
		}
	}
	return strings.Join(lines, "\n")
}

// Unwrap gives the errors one by one, for errors.Is and errors.As.
func (e *FileError) Unwrap() []error {
	var out []error
	for _, f := range e.Findings {
		if f.Kind == Problem {
			out = append(out, f)
		}
	}
	return out
}

// maxFindings caps what one file reports: a file of a million unknown
// fields is refused as fast as one of ten.
const maxFindings = 100

// findings collects what loading one file finds; the views of its
// operations share it.
type findings struct {
	list []Finding
	seen map[Finding]bool
	// kinds counts the findings of each kind, for the cap.
	kinds map[FindingKind]int
	// judged are the fields with an error or an unset variable already:
	// what is found later in them (or under them) follows from it (a
	// missing create.body does not also lack {{.Marker}}) and is left out.
	judged map[string]bool
	// judgedAt are the judged fields of each line.
	judgedAt map[int][]string
	// allowUnset lets unset variables through as findings (validate);
	// unset names them.
	allowUnset bool
	unset      []string
	// secrets are every operation's, to redact the findings with once all
	// are known (an error may quote a value a later field makes secret).
	secrets []string
}

func newFindings(o LoadOptions) *findings {
	return &findings{seen: map[Finding]bool{}, kinds: map[FindingKind]int{}, judged: map[string]bool{}, judgedAt: map[int][]string{}, allowUnset: o.AllowUnset}
}

// add keeps a finding unless it repeats one (each operation's view reads
// the file's own fields again) or follows from an error in its field.
// After maxFindings of a kind, one more says that more follow.
func (c *findings) add(f Finding) {
	if c.seen[f] {
		return
	}
	c.seen[f] = true
	if (f.Kind == Problem || f.Kind == Unset) && f.Field != "" {
		if c.under(f.Field) || c.partJudgedAt(f.Line, f.Field) {
			return
		}
		c.judged[f.Field] = true
		c.judgedAt[f.Line] = append(c.judgedAt[f.Line], f.Field)
	}
	c.kinds[f.Kind]++
	switch n := c.kinds[f.Kind]; {
	case n == maxFindings+1:
		f.Field, f.Message = "", "and more like the above: the first "+strconv.Itoa(maxFindings)+" are shown"
	case n > maxFindings:
		return
	}
	c.list = append(c.list, f)
}

// partJudgedAt says whether a part of field on line is judged: yaml's
// error for a list (tenants) repeats the one said of its item
// (tenants[1]).
func (c *findings) partJudgedAt(line int, field string) bool {
	return slices.ContainsFunc(c.judgedAt[line], func(j string) bool {
		return strings.HasPrefix(j, field+".") || strings.HasPrefix(j, field+"[")
	})
}

// under says whether field, or a field it is part of, is judged.
func (c *findings) under(field string) bool {
	for {
		if c.judged[field] {
			return true
		}
		i := strings.LastIndexAny(field, ".[")
		if i < 0 {
			return false
		}
		field = field[:i]
	}
}

// failed says whether the file holds an error.
func (c *findings) failed() bool {
	return c.kinds[Problem] > 0
}

// sorted is the findings in line order, redacted.
func (c *findings) sorted() []Finding {
	out := slices.Clone(c.list)
	slices.SortStableFunc(out, func(a, b Finding) int { return a.Line - b.Line })
	r := &Target{Secrets: c.secrets}
	for i := range out {
		out[i].Message = r.Redact(out[i].Message)
	}
	return out
}

// err is the file's refusal, or nil when it holds no error.
func (c *findings) err() error {
	if !c.failed() {
		return nil
	}
	return &FileError{Findings: c.sorted()}
}

// keep hands err to the file's findings and says whether there was none:
// a validator's error does not end the loading, so one load reports
// every finding; only what needs the validator's result is skipped.
func (d *document) keep(err error) bool {
	if err == nil {
		return true
	}
	var f Finding
	var fe *FileError
	switch {
	case errors.As(err, &fe):
		for _, f := range fe.Findings {
			d.found.add(f)
		}
	case errors.As(err, &f):
		d.found.add(f)
	default:
		d.found.add(Finding{File: d.name, Message: strings.TrimPrefix(err.Error(), d.name+": ")})
	}
	return false
}

// errorAt is an error at a line, for a field given by its label.
func (d *document) errorAt(line int, label, format string, args ...any) error {
	return Finding{File: d.name, Line: line, Field: label, Message: fmt.Sprintf(format, args...)}
}

// Address is the base URL as validate shows it: redacted, or as written
// when a variable it names is unset.
func (t *Target) Address() string {
	if t.written != "" {
		return t.written
	}
	return t.Redact(t.BaseURL.Redacted())
}
