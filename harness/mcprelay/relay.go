package mcprelay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/idemspec/idemspec/internal/loopback"
	"github.com/idemspec/idemspec/internal/toolfault"
	"github.com/idemspec/idemspec/targets/mcp"
)

// DefaultHold bounds how long a call's answer is held before it is
// dropped with every session, when nothing released it sooner.
const DefaultHold = 30 * time.Second

// Upstream is the one session with the real server the relay forwards
// to; a restart ends it and begins the next (a stdio server's process
// is started again).
type Upstream interface {
	Session() *mcp.Session
	Restart(ctx context.Context) error
	Close() error
}

// Options configure a Relay.
type Options struct {
	Upstream Upstream
	// Keys names each tool's key argument (absent: none).
	Keys map[string]string
	// Hold bounds a held answer (0: DefaultHold).
	Hold time.Duration
}

// Relay offers the server's tools to the agent and forwards its calls.
type Relay struct {
	up     Upstream
	tools  map[string]mcp.Tool
	keys   map[string]string
	hold   time.Duration
	server *sdk.Server
	ends   *loopback.Endpoints
	// Plan's FailNext and LoseAnswers aim at the calls Aim names: answer
	// the next n itself, or hold the answers of those that ran until
	// Restart drops them with every session (or the hold's bound does).
	toolfault.Plan

	mu  sync.Mutex
	gen *generation
	log []Call
	aim string
}

var errDropped = errors.New("the answer was dropped by idemspec's relay")

// Start lists the server's tools and serves them to agents, over a
// loopback relay listener (stdio agents, through `idemspec serve --mcp
// --relay`) and a loopback streamable HTTP endpoint.
func Start(ctx context.Context, opts Options) (*Relay, error) {
	s := opts.Upstream.Session()
	if s == nil {
		return nil, errors.New("the MCP server is not running")
	}
	tools, err := s.Tools(ctx)
	if err != nil {
		return nil, err
	}
	r := &Relay{up: opts.Upstream, tools: map[string]mcp.Tool{}, keys: opts.Keys, hold: opts.Hold, gen: newGeneration()}
	if r.hold <= 0 {
		r.hold = DefaultHold
	}
	info := *s.Server()
	r.server = sdk.NewServer(&info, nil)
	for _, t := range tools {
		r.tools[t.Name] = t
		if err := r.offer(t); err != nil {
			return nil, err
		}
	}
	if r.ends, err = loopback.Listen(r.serveStdio, http.HandlerFunc(r.serveHTTP)); err != nil {
		return nil, err
	}
	return r, nil
}

// offer adds the server's tool, as declared, to the relay's server; the
// SDK refuses (panics on) a schema that is not an object, which is the
// server's error, named.
func (r *Relay) offer(t mcp.Tool) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the server's tool %q cannot be relayed: %v", t.Name, p)
		}
	}()
	decl := *t.Declared
	r.server.AddTool(&decl, r.handle)
	return nil
}

// Tools are the server's tools, as tools/list declared them.
func (r *Relay) Tools() map[string]mcp.Tool { return r.tools }

// StdioAddr is where an agent's `idemspec serve --mcp --relay ADDR`
// connects its stdio.
func (r *Relay) StdioAddr() string { return r.ends.StdioAddr() }

// URL is the streamable HTTP endpoint agents reach the relay at.
func (r *Relay) URL() string { return r.ends.URL() }

// Calls is every tools/call so far, in the order they arrived.
func (r *Relay) Calls() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Call(nil), r.log...)
}

// Aim points the faults at calls of tool ("" at every tool not declared
// read-only).
func (r *Relay) Aim(tool string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.aim = tool
}

// Read calls a tool for idemspec itself (the oracle), not recorded.
func (r *Relay) Read(ctx context.Context, tool string, args map[string]any) (mcp.Answer, error) {
	s := r.up.Session()
	if s == nil {
		return mcp.Answer{}, errors.New("the MCP server is not running")
	}
	return s.Call(ctx, tool, args)
}

// Restart ends every agent session, dropping the answers held, and
// restarts the upstream session as a server restart would.
func (r *Relay) Restart(ctx context.Context) error {
	r.endSessions()
	return r.up.Restart(ctx)
}

// Close stops serving and ends every session (not the upstream: its
// owner closes it).
func (r *Relay) Close() {
	r.endSessions()
	r.ends.Close()
}

// endSessions ends the generation of agent sessions under way: held
// answers are dropped, stdio connections close, and HTTP sessions are
// unknown to the next generation's handler.
func (r *Relay) endSessions() {
	r.LoseAnswers(false)
	r.retire(r.current())
}

// retire ends g, and the sessions that never made a call, unless a
// restart already has.
func (r *Relay) retire(g *generation) {
	r.mu.Lock()
	if r.gen == g {
		r.gen = newGeneration()
	}
	next := r.gen
	r.mu.Unlock()
	g.end()
	for ss := range r.server.Sessions() {
		if !next.owns(ss) {
			ss.Close()
		}
	}
}

func (r *Relay) current() *generation {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.gen
}

// aimed says whether faults apply to a call of tool.
func (r *Relay) aimed(tool string) bool {
	if r.aim != "" {
		return tool == r.aim
	}
	return !r.tools[tool].ReadOnly
}

// handle is every tools/call: answered by the relay (FailNext) or the
// server, recorded, then handed on, or held and dropped.
func (r *Relay) handle(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	g := r.current()
	g.join(req.Session)
	name := req.Params.Name
	c := Call{At: time.Now(), Tool: name, ReadOnly: r.tools[name].ReadOnly, Arguments: req.Params.Arguments}
	c.Key, c.Hash = keyAndHash(req.Params.Arguments, r.keys[name])
	r.mu.Lock()
	aimed := r.aimed(name)
	r.mu.Unlock()
	inject, injecting := 0, false
	if aimed {
		inject, injecting = r.Inject()
	}
	var (
		res *sdk.CallToolResult
		err error
	)
	if injecting {
		res = injected(inject, r.tools[name].Declared)
		c.answer(res, nil)
		c.Injected, c.Retryable = true, toolfault.Retryable(inject)
	} else {
		res, err = r.forward(ctx, req.Params)
		c.answer(res, err)
	}
	hold := aimed && r.Losing()
	r.mu.Lock()
	// A held answer is dropped whichever way the hold ends, so the record
	// says so from the start: a hold cut at its bound ends the agent's
	// session, and the agent may read the record before this handler
	// runs again.
	c.Dropped = hold
	r.log = append(r.log, c)
	r.mu.Unlock()
	if !hold {
		return res, err
	}
	limit := time.NewTimer(r.hold)
	defer limit.Stop()
	select {
	case <-g.cut:
	case <-ctx.Done():
	case <-limit.C:
		// Unreleased: the answer is still dropped, with the sessions, so
		// that the agent never hears it. Ending them waits for this
		// handler, so it ends them from aside and waits for the cut.
		go r.retire(g)
		<-g.cut
	}
	return nil, errDropped
}

// forward is the call on the server's session.
func (r *Relay) forward(ctx context.Context, p *sdk.CallToolParamsRaw) (*sdk.CallToolResult, error) {
	s := r.up.Session()
	if s == nil {
		return nil, errors.New("the MCP server is not running")
	}
	return s.Forward(ctx, &sdk.CallToolParams{Meta: p.Meta, Name: p.Name, Arguments: p.Arguments})
}

// answer records what came back.
func (c *Call) answer(res *sdk.CallToolResult, err error) {
	switch {
	case err != nil && mcp.Refused(err):
		c.Answered, c.IsError, c.Content = true, true, err.Error()
	case err != nil:
		c.Err = err.Error()
	default:
		c.Answered, c.IsError = true, res.IsError
		c.Content = content(res)
		if sc, ok := res.StructuredContent.(map[string]any); ok && res.IsError {
			c.Retryable = sc["retryable"] == true
		}
	}
}

// content is what a result carries: its structured content, else its
// text.
func content(res *sdk.CallToolResult) string {
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			return string(b)
		}
	}
	var texts []string
	for _, c := range res.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			texts = append(texts, t.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// injected is the relay's own answer, one the server could give: a
// tool error with its text, saying whether the call may be made again,
// and structured content saying so too (retryable) only where it fits
// the tool's declared outputSchema. A client that validates structured
// content against it (the MCP TypeScript SDK, once it has listed the
// tools) would otherwise throw a protocol error the real server never
// causes.
func injected(status int, tool *sdk.Tool) *sdk.CallToolResult {
	res := &sdk.CallToolResult{
		IsError: true,
		Content: []sdk.Content{&sdk.TextContent{Text: "idemspec's relay: " + toolfault.Text(status) + " (the server did not run it)"}},
	}
	var schema any
	if tool != nil {
		schema = tool.OutputSchema
	}
	if sc := toolfault.Structured(status); toolfault.Fits(schema, sc) {
		res.StructuredContent = sc
	}
	return res
}
