package mcptools

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/idemspec/idemspec/targets/mcp"
)

// The oracle readings every check names.
const (
	whenBefore  = "before"
	whenOnce    = "after one call"
	whenAfter   = "after the repeats"
	whenBurst   = "after the burst"
	whenRestart = "after a restart and a retry"
	whenCrash   = "after a crash mid-call and a retry"
	stepChanged = "changed arguments"
)

// trial is one check's run against one tool: the calls it makes, all
// recorded in its trace.
type trial struct {
	srv    Server
	tool   mcp.Tool
	key    string
	args   arguments
	oracle mcp.Oracle
	s      Settings
	trace  *Trace

	mu  sync.Mutex
	seq int
}

// fresh is a new marker and key, unique to this run.
func fresh() Values {
	return Values{Marker: "idm" + token(), Key: "idk" + token()}
}

func token() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// argsFor renders the tool's arguments, or panics with errArgs, which
// the audit turns into ERROR: the arguments were checked before the
// trial started, so this is a harness bug or a template that fails
// only for some values.
func (tr *trial) argsFor(v Values) map[string]any {
	a, err := tr.args.For(v)
	if err != nil {
		panic(errArgs{err})
	}
	return a
}

type errArgs struct{ error }

// call calls the tool and records how it ended.
func (tr *trial) call(ctx context.Context, step string, args map[string]any) Outcome {
	ctx, cancel := context.WithTimeout(ctx, tr.s.callTimeout())
	defer cancel()
	a, err := tr.srv.Call(ctx, tr.tool.Name, args)
	return tr.record(step, args, a, err, false)
}

// lost calls the tool with its answer lost.
func (tr *trial) lost(ctx context.Context, step string, args map[string]any) {
	ctx, cancel := context.WithTimeout(ctx, tr.s.callTimeout())
	defer cancel()
	a, err := tr.srv.CallLost(ctx, tr.tool.Name, args)
	tr.record(step, args, a, err, true)
}

// burst makes n identical calls at once and waits for all of them.
func (tr *trial) burst(ctx context.Context, n int, args map[string]any) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			tr.call(ctx, fmt.Sprintf("burst %d/%d", i+1, n), args)
		})
	}
	close(start)
	wg.Wait()
}

func (tr *trial) record(step string, args map[string]any, a mcp.Answer, err error, lost bool) Outcome {
	c := Call{Step: step, Tool: tr.tool.Name, Args: compact(args), Answer: a.Content()}
	switch {
	case lost:
		c.Outcome = Lost
	case err != nil && mcp.Refused(err):
		c.Outcome, c.Answer = Refused, err.Error()
	case err != nil:
		c.Outcome, c.Answer = Unknown, err.Error()
	case a.IsError:
		c.Outcome = ToolError
	default:
		c.Outcome = Answered
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.seq++
	c.Seq = tr.seq
	tr.trace.Calls = append(tr.trace.Calls, c)
	return c.Outcome
}

// read asks the oracle and records how often each marker appears.
func (tr *trial) read(ctx context.Context, when string, markers ...string) error {
	ctx, cancel := context.WithTimeout(ctx, tr.s.callTimeout())
	defer cancel()
	a, err := tr.srv.Call(ctx, tr.oracle.Tool, tr.oracle.Args)
	if err == nil && a.IsError {
		err = errors.New(clip(a.Content()))
	}
	if err != nil {
		return fmt.Errorf("oracle %s (%s): %w", tr.oracle.Tool, when, err)
	}
	state := canonical(a.Content())
	r := Reading{When: when, State: state, Counts: map[string]int{}}
	for _, m := range markers {
		r.Counts[m] = strings.Count(state, m)
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.trace.Readings = append(tr.trace.Readings, r)
	return nil
}

func (tr *trial) note(format string, args ...any) {
	tr.trace.Notes = append(tr.trace.Notes, fmt.Sprintf(format, args...))
}

// canonical is s with JSON objects' keys sorted, so that two readings of
// one state compare equal; s as it is when it is not JSON.
func canonical(s string) string {
	var v any
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return s
	}
	return string(b)
}

func compact(args map[string]any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(args)
	return strings.TrimSpace(b.String())
}
