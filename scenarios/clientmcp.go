package scenarios

import (
	"fmt"
	"sync"

	. "github.com/onsi/ginkgo/v2"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/agent"
	"github.com/idemspec/idemspec/harness/upstream"
)

// ClientServer is the server side of a one-create trial: the log the
// checks judge, and creates it fails on request. The reference HTTP
// server, or over MCP the side that serves the reference MCP server
// (whose log names the tool as the path).
type ClientServer = upstream.Log

// requests is the server's log, with every bearer token in it made a
// secret of the run's target: the log keeps a token only as its tenant,
// and a client that also prints it (or sends it in a body) has it
// redacted from the reports, the logs and the terminal, as a ${VAR}
// of --cmd is.
func (ce *ClientEnv) requests() []upstream.Arrival {
	log := ce.server().Requests()
	for _, a := range log {
		ce.Env.Target.AddSecret(a.Tenant)
	}
	return log
}

// server is the trial's server side: the MCP side over MCP, else the
// reference HTTP server.
func (ce *ClientEnv) server() ClientServer {
	if ce.Wire != nil {
		return ce.Wire
	}
	if ce.MCP != nil {
		return ce.MCP.server()
	}
	return ce.Server
}

// answerer says who answers a create idemspec fails on a check's
// request (FailNext): the fault lines name it as the exchange tables do.
func (ce *ClientEnv) answerer() string {
	switch ce.MCP.(type) {
	case *TargetMCP:
		return "by idemspec's relay (a tool error of its own, the call not forwarded to the MCP server)"
	case *ClientMCP:
		return "by idemspec (a tool error of its own, the call not run by the reference MCP server)"
	}
	if ce.Wire != nil {
		return "by idemspec (not forwarded to the API)"
	}
	return "by idemspec's reference server itself, before any work"
}

// ClientMCP is client mode over MCP: the C checks judge the client's
// tool calls as they judge its requests. A create is a call of the
// create tool, a look-up a call of the find tool; an answer is lost
// (over stdio the side drops it, over HTTP the lane does) and then the
// server restarts, so the client's next call meets a new session.
type ClientMCP struct {
	Side upstream.MCPSide
	// Command is what the client runs to start the server over stdio
	// (IDEMSPEC_MCP_COMMAND); "" serves streamable HTTP on the faulty
	// lane instead.
	Command string
}

func (m *ClientMCP) server() ClientServer { return m.Side }

// adapt makes a trial's create the create tool and its look-up the find
// tool (the log's paths).
func (m *ClientMCP) adapt(t *trial) {
	t.in.CreatePath, t.in.LookupPath = upstream.ToolCreateRecord, upstream.ToolFindRecord
	transport := "stdio, through idemspec's proxy"
	if m.Command == "" {
		transport = "streamable HTTP, on the fault proxy's lane"
	}
	t.ev.Notes = append(t.ev.Notes, fmt.Sprintf("over MCP (%s): creates are %s calls, look-ups %s calls", transport, upstream.ToolCreateRecord, upstream.ToolFindRecord))
}

// environ is the contract's environment over MCP for the trial.
func (m *ClientMCP) environ(t *trial) []string {
	tools := agent.MCP{Command: m.Command, CreateTool: upstream.ToolCreateRecord, FindTool: upstream.ToolFindRecord,
		KeyArg: upstream.KeyArgument, Arguments: t.in.Payload}
	if m.Command == "" {
		tools.URL = "http://" + t.ce.Env.Faulty.Addr + "/mcp"
	}
	return tools.Environ(t.in)
}

// apply loses answers until the returned remove, which restarts the
// server: over stdio the side drops the answers (a lane fault has no
// connection to act on there), over HTTP the lane takes f.
func (m *ClientMCP) apply(t *trial, f harness.Fault, why string) (func(), error) {
	lift := func() { m.Side.LoseAnswers(false) }
	what := "the MCP server's answers dropped by idemspec's stdio proxy " + why
	if m.Command == "" {
		// On the lane from the first create on: the session's set-up
		// before it is answered.
		var mu sync.Mutex
		var applied func()
		m.Side.BeforeCreate(func() {
			r, err := t.ce.Env.Faulty.Apply(f)
			if err != nil {
				r = func() {}
			}
			mu.Lock()
			applied = r
			mu.Unlock()
		})
		lift = func() {
			m.Side.BeforeCreate(nil)
			mu.Lock()
			defer mu.Unlock()
			if applied != nil {
				applied()
			}
		}
		what = f.Name() + " " + why + " (put on the lane as the first create call arrived, after the session's set-up)"
	} else {
		m.Side.LoseAnswers(true)
	}
	var once sync.Once
	remove := func() {
		once.Do(func() {
			lift()
			if err := m.Side.Restart(); err != nil {
				t.ev.Notes = append(t.ev.Notes, "the MCP server's restart failed: "+err.Error())
			}
		})
	}
	DeferCleanup(remove)
	t.ev.Faults = append(t.ev.Faults, what+"; then the MCP server restarted (every session ends)")
	return remove, nil
}
