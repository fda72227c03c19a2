package mcptools

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/idemspec/idemspec/fakes/mcpserver"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/reports"
	"github.com/idemspec/idemspec/targets/mcp"
)

// cutting is a server whose audit is interrupted just before the tool's
// nth call, an answer lost or not: as a SIGTERM or the audit's time
// limit lands mid-check.
type cutting struct {
	Server
	tool  string
	n     int
	cut   context.CancelCauseFunc
	mu    sync.Mutex
	calls int
}

func (c *cutting) Call(ctx context.Context, tool string, args map[string]any) (mcp.Answer, error) {
	c.count(tool)
	return c.Server.Call(ctx, tool, args)
}

// CallLost is a call too: counted only in Call, a sequence that began
// with lost answers (one in about 75 draws) broke the model before the
// cut, and the test read that FAIL as a verdict reached after it.
func (c *cutting) CallLost(ctx context.Context, tool string, args map[string]any) (mcp.Answer, error) {
	c.count(tool)
	return c.Server.CallLost(ctx, tool, args)
}

func (c *cutting) count(tool string) {
	if tool != c.tool {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls++; c.calls == c.n {
		c.cut(errors.New("interrupted by SIGTERM"))
	}
}

// TestM9CutShortIsNotFinished: an audit interrupted while M9 searches a
// tool that appends on every call has no verdict on it (ERROR, not
// finished), never PASS; uninterrupted, M9 fails it (TestM9CatchesShrunk).
// The cut lands on the first sequence's first call, after the call
// that measured one call's effect.
func TestM9CutShortIsNotFinished(t *testing.T) {
	srv, tools := StartStdio(t, "idempotent-appends")
	audited, _, err := Prepare(tools, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range audited {
		if a.Tool.Name != mcpserver.ToolPut {
			continue
		}
		ctx, cut := context.WithCancelCause(context.Background())
		defer cut(nil)
		r := runOne(ctx, &cutting{Server: srv, tool: a.Tool.Name, n: 2, cut: cut}, a, M9, Settings{})
		if r.Verdict.Status != check.ERROR || !strings.Contains(r.Verdict.Reason, "not finished") || !strings.Contains(r.Verdict.Reason, "SIGTERM") {
			t.Errorf("M9 cut short: %s (%s), want ERROR, not finished, naming the signal", r.Verdict.Status, r.Verdict.Reason)
		}
		return
	}
	t.Fatalf("no tool %s", mcpserver.ToolPut)
}

// TestToolTableNeverPassesWhatDidNotRun: a tool's verdict is PASS only
// when every check that concerns it ran; an audit cut short before some
// of them (an interrupt, the time limit) leaves it NOT AUDITED unless a
// check that did run found worse than a SKIP.
func TestToolTableNeverPassesWhatDidNotRun(t *testing.T) {
	read := Audited{Tool: mcp.Tool{Name: "get_note", Annotated: true, ReadOnly: true}}
	put := Audited{Tool: mcp.Tool{Name: "put_note", Annotated: true, Idempotent: true}}
	result := func(a Audited, c *Check, s check.Status) Result {
		return Result{Tool: a.Tool, Check: c.Entry(), Verdict: check.Verdict{Check: c.ID, Status: s, Reason: "r"}}
	}
	for _, c := range []struct {
		name    string
		results []Result
		want    check.Status
		listed  string
	}{
		{"nothing ran", nil, reports.NotAudited, "M4 not run, M8 not run"},
		{"some passed, the rest never ran", []Result{result(read, M4, check.PASS)}, reports.NotAudited, "M4 PASS, M8 not run"},
		{"one skipped, the rest never ran", []Result{result(read, M4, check.SKIP)}, reports.NotAudited, "M4 SKIP, M8 not run"},
		{"a finding stands", []Result{result(read, M4, check.FAIL)}, check.FAIL, "M4 FAIL, M8 not run"},
		{"every check ran", []Result{result(read, M4, check.PASS), result(read, M8, check.PASS)}, check.PASS, "M4 PASS, M8 PASS"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rows := ToolTable(c.results, []Audited{read, put})
			if rows[0].Verdict != c.want || rows[0].Verdicts != c.listed {
				t.Errorf("%s: %s (%s), want %s (%s)", read.Tool.Name, rows[0].Verdict, rows[0].Verdicts, c.want, c.listed)
			}
			if rows[1].Verdict != reports.NotAudited {
				t.Errorf("%s, with no result: %s, want %s", put.Tool.Name, rows[1].Verdict, reports.NotAudited)
			}
		})
	}
}
