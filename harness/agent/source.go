package agent

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Source is where a client takes the inputs of its one create from. The
// reference client and its mutants are one program whichever source
// feeds them: Contract, idemspec's IDEMSPEC_ variables (`idemspec
// client --cmd`), or Own, the program's own choices, as an unmodified
// agent makes them (`idemspec client --target --base-url-env`).
type Source interface {
	// HTTP is the create over HTTP.
	HTTP() (Inputs, error)
	// MCP is the create as a tool call; the Inputs hold the shared parts
	// (Payload is the create's arguments).
	MCP() (MCP, Inputs, error)
}

// Contract reads every input from idemspec's variables
// (docs/CLIENT-CONTRACT.md).
type Contract struct{}

// HTTP reads the inputs of a create over HTTP.
func (Contract) HTTP() (Inputs, error) { return FromEnv() }

// MCP reads the inputs of a create over MCP.
func (Contract) MCP() (MCP, Inputs, error) { return MCPFromEnv() }

// Own is an unmodified agent's inputs: it reads only where its API is
// from the variable it names, as an SDK reads its base URL, and knows
// the rest itself (the API's shape, its payload, its bounds); it keeps
// its state in Dir, its working directory. It reads no IDEMSPEC_
// variable.
type Own struct {
	// BaseURLEnv names the variable holding the API's base URL (HTTP).
	BaseURLEnv string
	// MCPCommandEnv and MCPURLEnv name the variable holding the MCP
	// server's command (stdio) or endpoint (streamable HTTP): one of
	// them, for MCP.
	MCPCommandEnv, MCPURLEnv string
	// API is the API the agent was written against.
	API OwnAPI
	// Dir is where the agent keeps what must survive a restart.
	Dir string
	// AttemptBudget, Deadline and AttemptTimeout are the agent's own
	// bounds.
	AttemptBudget            int
	Deadline, AttemptTimeout time.Duration
}

// OwnAPI is what an agent knows of the API it calls, as an SDK does: the
// create and its look-up, where the key goes, and the one operation it
// performs with its fixed business payload.
type OwnAPI struct {
	CreatePath, LookupPath, KeyHeader string
	// Payload is the create's body over HTTP.
	Payload string
	// CreateTool, FindTool, KeyArg and Arguments are the same over MCP.
	CreateTool, FindTool, KeyArg, Arguments string
	// Operation names the operation in the agent's journal: a restart in
	// the same directory resumes it, and a finished one is not redone.
	Operation string
}

// HTTP is the create over HTTP at the base URL in BaseURLEnv.
func (o Own) HTTP() (Inputs, error) {
	base, err := o.variable(o.BaseURLEnv, "the API's base URL")
	if err != nil {
		return Inputs{}, err
	}
	if !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://") {
		return Inputs{}, fmt.Errorf("%s=%q: want the API's base URL, http:// or https://", o.BaseURLEnv, base)
	}
	in, err := o.shared()
	in.ServerURL = strings.TrimRight(base, "/")
	in.CreatePath, in.LookupPath = o.API.CreatePath, o.API.LookupPath
	in.KeyIn, in.KeyName, in.KeyHeader = KeyInHeader, o.API.KeyHeader, o.API.KeyHeader
	in.Payload = o.API.Payload
	return in, err
}

// MCP is the create as a call of the API's create tool, on the server
// whose command or URL the named variable holds.
func (o Own) MCP() (MCP, Inputs, error) {
	m := MCP{CreateTool: o.API.CreateTool, FindTool: o.API.FindTool, KeyArg: o.API.KeyArg, Arguments: o.API.Arguments}
	var err error
	switch {
	case (o.MCPCommandEnv == "") == (o.MCPURLEnv == ""):
		return m, Inputs{}, errors.New("want the variable of the MCP server's command or of its URL, one of them")
	case o.MCPURLEnv != "":
		m.URL, err = o.variable(o.MCPURLEnv, "the MCP server's URL")
	default:
		m.Command, err = o.variable(o.MCPCommandEnv, "the command that starts the MCP server")
	}
	if err != nil {
		return m, Inputs{}, err
	}
	in, err := o.shared()
	in.Payload = m.Arguments
	return m, in, err
}

// variable reads one of the agent's variables, which must be set.
func (o Own) variable(name, what string) (string, error) {
	if name == "" {
		return "", fmt.Errorf("no variable named for %s", what)
	}
	v := os.Getenv(name)
	if v == "" {
		return "", fmt.Errorf("%s is not set: it holds %s", name, what)
	}
	return v, nil
}

// shared is what the agent keeps whatever it calls: its state directory,
// its operation and its bounds.
func (o Own) shared() (Inputs, error) {
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return Inputs{}, fmt.Errorf("the state directory %q: %w", o.Dir, err)
	}
	in := Inputs{StateDir: dir, Marker: o.API.Operation, AttemptBudget: o.AttemptBudget, Deadline: o.Deadline, AttemptTimeout: o.AttemptTimeout}
	switch {
	case in.AttemptBudget < 1:
		return in, fmt.Errorf("attempts %d: want at least 1", in.AttemptBudget)
	case in.Deadline <= 0 || in.AttemptTimeout <= 0:
		return in, fmt.Errorf("deadline %s, attempt timeout %s: want both positive", in.Deadline, in.AttemptTimeout)
	}
	return in, nil
}
