package scenarios

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/mcprelay"
	"github.com/idemspec/idemspec/harness/upstream"
	"github.com/idemspec/idemspec/targets"
	"github.com/idemspec/idemspec/targets/mcp"
)

// TargetMCP is client mode against a real MCP server (`idemspec client
// --mcp --target FILE`): the unmodified program reaches the server
// through idemspec's relay, named in the variables the user gives, and
// the C checks judge its calls of the operation: the first tool not
// declared read-only that its baseline run called. Its key is the
// tool's key argument; its effects are counted by the file's oracle
// tool, or from the answers.
type TargetMCP struct {
	Relay *mcprelay.Relay
	// RelayCommand starts the relay over stdio (the agent's server
	// command); CommandEnv and URLEnv name the variables that carry it
	// and the relay's streamable HTTP URL.
	RelayCommand       string
	CommandEnv, URLEnv []string
	// Oracle is the file's read tool ("" Tool: count from the answers).
	Oracle mcp.Oracle
	// Keys maps each tool to its key argument.
	Keys map[string]string
	// ExitCodes map the program's exit codes to the end states it means
	// (--exit-codes), for a program that prints no result.
	ExitCodes map[int]string

	once     sync.Once
	baseline targetBaseline
	baseErr  error
}

// targetBaseline is what the program's run without faults did.
type targetBaseline struct {
	tool    string // the operation
	effects int
	note    string
}

func (m *TargetMCP) server() ClientServer { return m }

// Requests is the relay's log in the server log's terms: the tool is the
// path, a call of a tool not declared read-only a POST, a read a GET.
func (m *TargetMCP) Requests() []upstream.Arrival {
	calls := m.Relay.Calls()
	out := make([]upstream.Arrival, len(calls))
	for i, c := range calls {
		method := http.MethodPost
		if c.ReadOnly {
			method = http.MethodGet
		}
		out[i] = upstream.Arrival{At: c.At, Method: method, Path: c.Tool, Key: c.Key, Hash: c.Hash, Status: c.Status()}
	}
	return out
}

// FailNext has the relay answer the operation's next n calls itself.
func (m *TargetMCP) FailNext(n, status int) { m.Relay.FailNext(n, status) }

// adapt has nothing to do before the baseline: prepare does it.
func (m *TargetMCP) adapt(*trial) {}

// environ is the relay, in every variable the user named, and nothing
// of idemspec's contract.
func (m *TargetMCP) environ(*trial) []string {
	var env []string
	for _, name := range m.CommandEnv {
		env = append(env, name+"="+m.RelayCommand)
	}
	for _, name := range m.URLEnv {
		env = append(env, name+"="+m.Relay.URL())
	}
	return env
}

// apply holds the answers of the operation's calls once they ran, until
// the returned remove, which drops them and restarts the server (every
// session ends).
func (m *TargetMCP) apply(t *trial, _ harness.Fault, why string) (func(), error) {
	m.Relay.LoseAnswers(true)
	var once sync.Once
	remove := func() {
		once.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), restartLimit)
			defer cancel()
			if err := m.Relay.Restart(ctx); err != nil {
				t.ev.Notes = append(t.ev.Notes, "the MCP server's restart failed: "+err.Error())
			}
		})
	}
	DeferCleanup(remove)
	t.ev.Faults = append(t.ev.Faults, fmt.Sprintf("the answers of %s calls held by idemspec's relay %s, then dropped, and the MCP server restarted (every session ends)", t.in.CreatePath, why))
	return remove, nil
}

// restartLimit bounds a restart of the server.
const restartLimit = 30 * time.Second

// prepare learns, once per run, what one run of the program does
// without faults, then points the trial and the relay at its operation
// and reads the oracle as the trial begins.
func (m *TargetMCP) prepare(ctx context.Context, t *trial) error {
	m.once.Do(func() { m.baseline, m.baseErr = m.runBaseline(ctx, t) })
	if m.baseErr != nil {
		return m.baseErr
	}
	b := m.baseline
	t.in.CreatePath, t.in.LookupPath = b.tool, ""
	for _, tool := range m.Relay.Tools() {
		if tool.ReadOnly {
			t.in.LookupPath = "{key}" // a read of any read-only tool is a look-up
		}
	}
	m.Relay.Aim(b.tool)
	t.ev.Notes = append(t.ev.Notes, b.note)
	var err error
	if t.oracleBefore, err = m.items(ctx); err != nil {
		return err
	}
	t.offset = len(m.Relay.Calls())
	t.rec.Expected = b.effects
	// Unmodified: it need not print a result (C4 reads its exit codes).
	t.rec.Unmodified = true
	if m.Keys[b.tool] == "" {
		t.rec.NoKey = fmt.Sprintf("%s takes no key argument (none named in the file's tools.%s.key, none named like idempotency_key, request_id or client_token): no key to hold the same", b.tool, b.tool)
	}
	return nil
}

// runBaseline runs the program once, in a directory of its own, with
// no fault.
func (m *TargetMCP) runBaseline(ctx context.Context, t *trial) (targetBaseline, error) {
	dir, err := os.MkdirTemp(t.ce.StateRoot, "baseline-")
	if err != nil {
		return targetBaseline{}, err
	}
	before, err := m.items(ctx)
	if err != nil {
		return targetBaseline{}, err
	}
	offset := len(m.Relay.Calls())
	p, err := t.ce.Clients.StartIn(dir, t.ce.Command, m.environ(t))
	if err != nil {
		return targetBaseline{}, err
	}
	x := p.Wait(ctx, t.ce.Deadline+t.ce.Slack)
	_, stderr := p.Output(outputExcerpt)
	calls := m.Relay.Calls()[offset:]
	tool := ""
	var seen []string
	for _, c := range calls {
		seen = append(seen, c.Tool)
		if !c.ReadOnly && tool == "" {
			tool = c.Tool
		}
	}
	ran := fmt.Sprintf("exit %d after %v", x.Code, x.Elapsed.Round(time.Millisecond))
	if x.Killed != "" {
		ran += ", killed: " + x.Killed
	}
	switch {
	case len(calls) == 0:
		return targetBaseline{}, fmt.Errorf("the program made no tool call in its run without faults (%s), so there is nothing to judge: does it reach its MCP server through %s? stderr: %s", ran, m.variables(), orNone(strings.TrimSpace(stderr)))
	case tool == "":
		return targetBaseline{}, fmt.Errorf("the program's run without faults called only tools the server declares read-only (%s): no effect to judge", listed(seen))
	}
	b := targetBaseline{tool: tool}
	how := "distinct answers of " + tool
	if m.Oracle.Tool != "" {
		after, err := m.items(ctx)
		if err != nil {
			return targetBaseline{}, err
		}
		b.effects, how = NewItems(before, after), "new items in "+m.Oracle.Tool+"'s answer"
	} else {
		b.effects = AnswerEffects(calls, tool)
	}
	if b.effects == 0 {
		return targetBaseline{}, fmt.Errorf("the program's run without faults (%s) called %s but made no effect idemspec can count (%s): nothing to judge", ran, tool, how)
	}
	key := m.Keys[tool]
	if key == "" {
		key = "none"
	}
	b.note = fmt.Sprintf("baseline (one run without faults, in a directory of its own, %s): %d tool calls (%s); the operation judged is %s (key argument %s), making %d effect(s) counted as %s; every trial must make the same",
		ran, len(calls), listed(seen), tool, key, b.effects, how)
	return b, nil
}

// settle reads the trial's effects: the attempts of the operation's
// first call are judged, and its resources are the oracle's new items
// (or the answers').
func (m *TargetMCP) settle(ctx context.Context, t *trial) error {
	t.rec.Requests = AttemptsOfFirst(t.rec.Requests)
	if m.Oracle.Tool == "" {
		t.rec.Resources = AnswerEffects(m.Relay.Calls()[t.offset:], t.in.CreatePath)
		t.ev.Notes = append(t.ev.Notes, fmt.Sprintf("effects: %d distinct answers of %s (the file names no oracle tool)", t.rec.Resources, t.in.CreatePath))
		return nil
	}
	after, err := m.items(ctx)
	if err != nil {
		return err
	}
	t.rec.Resources = NewItems(t.oracleBefore, after)
	t.ev.Notes = append(t.ev.Notes, fmt.Sprintf("effects: %d new items in %s's answer since the trial began (the baseline made %d)", t.rec.Resources, m.Oracle.Tool, t.rec.Expected))
	return nil
}

// items is the oracle tool's answer as items (none without an oracle).
func (m *TargetMCP) items(ctx context.Context) ([]string, error) {
	if m.Oracle.Tool == "" {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, restartLimit)
	defer cancel()
	a, err := m.Relay.Read(ctx, m.Oracle.Tool, m.Oracle.Args)
	if err != nil {
		return nil, fmt.Errorf("the oracle tool %s: %w", m.Oracle.Tool, err)
	}
	if a.IsError {
		return nil, errors.New("the oracle tool " + m.Oracle.Tool + " answered a tool error: " + a.Text)
	}
	return OracleItems(a.Content()), nil
}

func (m *TargetMCP) variables() string {
	var vs []string
	for _, n := range append(append([]string(nil), m.CommandEnv...), m.URLEnv...) {
		vs = append(vs, "$"+n)
	}
	return strings.Join(vs, " or ")
}

// Kind names how effects are counted, as the run's oracle.
func (m *TargetMCP) Kind() string {
	if m.Oracle.Tool == "" {
		return "the answers of the operation's calls (distinct successful answers; the file names no oracle tool)"
	}
	return "the MCP server's " + m.Oracle.Tool + " tool (the items its answer gains during a trial)"
}

// Observe is not how a real server is read: its effects carry no
// marker (settle counts them).
func (m *TargetMCP) Observe(context.Context, string) (targets.Observation, error) {
	return targets.Observation{}, errors.New("a real MCP server's effects carry no marker: client mode counts them per trial")
}

// Evidence says what a count is compared with.
func (m *TargetMCP) Evidence() string {
	return "counted per check, and compared with what one run without faults made"
}
