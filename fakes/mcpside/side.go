package mcpside

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/fakes/mcpserver"
	"github.com/idemspec/idemspec/harness/upstream"
	"github.com/idemspec/idemspec/internal/loopback"
	"github.com/idemspec/idemspec/internal/toolfault"
	"github.com/idemspec/idemspec/targets"
)

// Options configure a Side.
type Options struct {
	// Dir holds the server's state file, so that a restart keeps every
	// record the server answered for.
	Dir string
	// Work is how long a create works before it stores (0: the
	// reference's default).
	Work time.Duration
}

// Side is the reference MCP server as client mode serves it, and the log
// of what the agent asked of it.
type Side struct {
	opts Options
	ends *loopback.Endpoints
	// Plan's FailNext answers the next n creates itself, without the
	// server (client mode's 503 and 422); LoseAnswers drops the answer
	// of every create and find call on stdio: the call runs, the agent
	// never hears (over HTTP the fault proxy loses answers).
	toolfault.Plan

	mu         sync.Mutex
	gen        *generation
	log        []fakes.Arrival
	beforeNext func()
	closed     bool
}

// generation is one run of the server: a restart starts the next, and
// the sessions of the last end with it.
type generation struct {
	server  *mcpserver.Server
	handler http.Handler
	ctx     context.Context
	stop    context.CancelFunc

	conns loopback.Conns
}

// Start serves the reference MCP server with its record tools: a relay
// listener for stdio agents and a streamable HTTP endpoint, both on
// loopback.
func Start(opts Options) (*Side, error) {
	s := &Side{opts: opts}
	if err := s.next(); err != nil {
		return nil, err
	}
	var err error
	if s.ends, err = loopback.Listen(s.serveRelay, http.HandlerFunc(s.serveHTTP)); err != nil {
		return nil, err
	}
	return s, nil
}

// RelayAddr is where `idemspec mcp-relay` connects an agent's stdio.
func (s *Side) RelayAddr() string { return s.ends.StdioAddr() }

// URL is the streamable HTTP endpoint (client mode puts the fault proxy
// in front of it).
func (s *Side) URL() string { return s.ends.URL() }

func (s *Side) statePath() string { return filepath.Join(s.opts.Dir, "mcp-state.json") }

// next starts a generation of the server from the state file and ends
// the last one: its stdio connections close, and its HTTP sessions are
// unknown to the new handler (the agent gets 404 and must start anew).
func (s *Side) next() error {
	srv, err := mcpserver.New(mcpserver.Options{StatePath: s.statePath(), Work: s.opts.Work, Records: true})
	if err != nil {
		return err
	}
	ctx, stop := context.WithCancel(context.Background())
	g := &generation{server: srv, handler: srv.Handler(), ctx: ctx, stop: stop}
	s.mu.Lock()
	old := s.gen
	s.gen = g
	s.mu.Unlock()
	if old != nil {
		old.end()
	}
	return nil
}

func (g *generation) end() {
	g.stop()
	g.conns.Close()
}

// Restart restarts the server: every session ends, every record stays.
func (s *Side) Restart() error { return s.next() }

// The side is the upstream client mode's MCP checks judge.
var _ upstream.MCPSide = (*Side)(nil)

// Requests is every create and find call so far, in the order their
// answers came (an injected tool error's at once); Path is the tool.
func (s *Side) Requests() []fakes.Arrival {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]fakes.Arrival(nil), s.log...)
}

// BeforeCreate has f run once, when the next create call arrives, before
// the server (or FailNext) answers it: over HTTP, client mode puts the
// fault on the lane then, so it holds that call's answer and not the
// session's set-up before it.
func (s *Side) BeforeCreate(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.beforeNext = f
}

// begin logs the start of a watched call; inject is the side's own
// answer when FailNext applies to it.
func (s *Side) begin(c *call) (inject []byte) {
	s.mu.Lock()
	var before func()
	if c.isCreate {
		before, s.beforeNext = s.beforeNext, nil
	}
	s.mu.Unlock()
	if before != nil {
		before()
	}
	if !c.isCreate {
		return nil
	}
	status, ok := s.Inject()
	if !ok {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.record(c, status)
	return toolError(c.id, status)
}

// end logs a call's answer and says whether to drop it.
func (s *Side) end(c *call, answer []byte) (drop bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.record(c, outcome(answer))
	return s.Losing()
}

// record logs a call in the HTTP server's terms, as its status is: the
// tool is the path, a create a POST, a find (read-only) a GET.
func (s *Side) record(c *call, status int) {
	method := http.MethodGet
	if c.isCreate {
		method = http.MethodPost
	}
	s.log = append(s.log, fakes.Arrival{At: c.at, Method: method, Key: c.key, Hash: c.hash, Status: status, Path: c.tool})
}

func (s *Side) current() *generation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen
}

// Kind names the oracle.
func (s *Side) Kind() string { return "mcp records (the server's state file)" }

// Observe counts the records carrying marker, from the server's state
// file: written before every answer, so it holds every effect.
func (s *Side) Observe(_ context.Context, marker string) (targets.Observation, error) {
	var st mcpserver.State
	b, err := os.ReadFile(s.statePath())
	if errors.Is(err, os.ErrNotExist) {
		return targets.Observation{}, nil
	}
	if err != nil {
		return targets.Observation{}, err
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return targets.Observation{}, fmt.Errorf("the MCP server's state: %w", err)
	}
	var obs targets.Observation
	for _, r := range st.Records {
		if r.Marker == marker {
			obs.Count++
			obs.IDs = append(obs.IDs, fmt.Sprint(r.ID))
		}
	}
	return obs, nil
}

// Close ends the server, the relay listener and the HTTP endpoint.
func (s *Side) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	g := s.gen
	s.mu.Unlock()
	s.ends.Close()
	g.end()
	return nil
}

// Evidence says why the oracle's count holds every effect.
func (s *Side) Evidence() string {
	return "every record the server answered for is in its state file before the answer leaves"
}
