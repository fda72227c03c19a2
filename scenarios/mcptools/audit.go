package mcptools

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/targets/mcp"
)

// Result is one check's verdict on one tool, with its evidence.
type Result struct {
	Tool     mcp.Tool
	Check    check.Entry
	Verdict  check.Verdict
	Evidence check.Evidence
	Elapsed  time.Duration
}

// Prepare reads what tools/list declared against the settings: each
// tool's key property and arguments, and the oracle. An oracle or a tool
// the settings name that the server lacks, or a template that does not
// parse, is an error of the target file.
func Prepare(tools []mcp.Tool, s Settings) ([]Audited, string, error) {
	byName := map[string]mcp.Tool{}
	for _, t := range tools {
		byName[t.Name] = t
	}
	for name := range s.Tools {
		if _, ok := byName[name]; !ok {
			return nil, "", fmt.Errorf("tools: %s: the server has no such tool (it has: %s)", name, names(tools))
		}
	}
	oracle, how, err := chooseOracle(tools, s.Oracle.Tool)
	if err != nil {
		return nil, "", err
	}
	if len(s.Oracle.Args) > 0 && oracle == s.Oracle.Tool {
		how += ", called with " + compact(s.Oracle.Args)
	}
	var out []Audited
	for _, t := range tools {
		ts := s.Tools[t.Name]
		a := Audited{Tool: t, Key: t.KeyProperty(ts.Key), Skip: ts.Skip, Oracle: oracle}
		if ts.Key != "" && a.Key == "" {
			return nil, "", fmt.Errorf("tools: %s: key: the input schema has no property %q", t.Name, ts.Key)
		}
		args, err := newArguments(t, a.Key, ts)
		if err != nil {
			return nil, "", err
		}
		if _, err := args.For(fresh()); err != nil {
			a.Args = err.Error()
		}
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Tool.Name < out[j].Tool.Name })
	return out, how, nil
}

// chooseOracle is the named oracle tool, or the first read-only tool
// that needs no argument.
func chooseOracle(tools []mcp.Tool, named string) (name, how string, err error) {
	if named != "" {
		if !slices.ContainsFunc(tools, func(t mcp.Tool) bool { return t.Name == named }) {
			return "", "", fmt.Errorf("oracle: tool: the server has no tool %q (it has: %s)", named, names(tools))
		}
		return named, "named", nil
	}
	var candidates []string
	for _, t := range tools {
		if t.ReadOnly && !slices.ContainsFunc(t.Properties(), func(p mcp.Property) bool { return p.Required }) {
			candidates = append(candidates, t.Name)
		}
	}
	if len(candidates) == 0 {
		return "", "no read-only tool without required arguments: name an oracle", nil
	}
	sort.Strings(candidates)
	return candidates[0], "chosen: the first read-only tool that needs no argument", nil
}

func names(tools []mcp.Tool) string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Name)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// Run audits every tool with every check that concerns it, one trial at
// a time (the oracle reads the whole state, so no two trials overlap).
// It stops early, with what it has, when ctx ends.
func Run(ctx context.Context, srv Server, tools []Audited, s Settings) []Result {
	var out []Result
	for _, a := range tools {
		for _, c := range Checks() {
			if !c.Concerned(Offered{Audited: a, Server: srv}) {
				continue
			}
			if ctx.Err() != nil {
				return out
			}
			out = append(out, runOne(ctx, srv, a, c, s))
		}
	}
	return out
}

// declared is the evidence of a check judged from the declaration: what
// tools/list said, no call.
func declared(a Audited) check.Evidence {
	note := fmt.Sprintf("judged from tools/list alone, no call: %s declares %s", a.Tool.Name, a.Tool.Claim())
	if a.Key != "" {
		note += "; key property " + a.Key
	}
	return check.Evidence{Notes: []string{note}}
}

func runOne(audit context.Context, srv Server, a Audited, c *Check, s Settings) (r Result) {
	start := time.Now()
	r = Result{Tool: a.Tool, Check: c.Entry()}
	defer func() { r.Elapsed = time.Since(start) }()
	on := Offered{Audited: a, Server: srv}
	if c.Judge != nil {
		r.Verdict = c.Judge(on)
		r.Evidence = declared(a)
		return r
	}
	if why := c.Skips(on); why != "" {
		r.Verdict = check.Skip(c.ID, why)
		return r
	}
	ctx, cancel := context.WithTimeout(audit, s.checkTimeout())
	defer cancel()
	args, _ := newArguments(a.Tool, a.Key, s.Tools[a.Tool.Name])
	tr := &trial{srv: srv, tool: a.Tool, key: a.Key, args: args, oracle: mcp.Oracle{Tool: a.Oracle, Args: s.Oracle.Args}, s: s, trace: &Trace{Tool: a.Tool.Name}}
	if a.Oracle != s.Oracle.Tool {
		tr.oracle.Args = nil // the chosen oracle needs no argument
	}
	defer func() {
		if p := recover(); p != nil {
			e, ok := p.(errArgs)
			if !ok {
				panic(p)
			}
			r.Verdict = check.Errored(c.ID, e.error)
		}
		r.Evidence = tr.trace.Evidence()
	}()
	v, err := c.Run(ctx, tr)
	if err != nil {
		v = check.Errored(c.ID, err)
	}
	r.Verdict = v
	if audit.Err() != nil && (r.Verdict.Status == check.PASS || r.Verdict.Status == check.SKIP) {
		// The audit was interrupted or ran out of time while the check
		// ran: what it saw is not all it would have seen.
		r.Verdict = check.Errored(c.ID, fmt.Errorf("not finished: %v", cutShort(audit)))
	}
	return r
}

// cutShort says what ended the audit: a signal (the cause names it) or
// its time limit.
func cutShort(audit context.Context) string {
	if cause := context.Cause(audit); cause != nil && !errors.Is(cause, context.DeadlineExceeded) && !errors.Is(cause, context.Canceled) {
		return cause.Error()
	}
	if errors.Is(audit.Err(), context.DeadlineExceeded) {
		return "the audit's time limit (--timeout) ran out"
	}
	return "the audit was interrupted"
}
