package agent

import (
	"fmt"
	"os"
	"strings"
)

// The environment of a client over MCP (docs/CLIENT-CONTRACT.md#over-mcp),
// given beside the shared variables (IDEMSPEC_MARKER, IDEMSPEC_STATE_DIR,
// IDEMSPEC_RUN_ID, IDEMSPEC_ATTEMPT_BUDGET, IDEMSPEC_DEADLINE_MS,
// IDEMSPEC_ATTEMPT_TIMEOUT_MS). Exactly one of the command and the URL is
// set: it says the transport.
const (
	EnvMCPCommand    = "IDEMSPEC_MCP_COMMAND"     // stdio: the command (sh -c) that starts the server
	EnvMCPURL        = "IDEMSPEC_MCP_URL"         // streamable HTTP: the endpoint, through the fault proxy
	EnvMCPCreateTool = "IDEMSPEC_MCP_CREATE_TOOL" // the keyed create
	EnvMCPFindTool   = "IDEMSPEC_MCP_FIND_TOOL"   // the read tool that finds what a key made
	EnvMCPKeyArg     = "IDEMSPEC_MCP_KEY_ARG"     // the create's (and the find's) key argument
	EnvMCPArguments  = "IDEMSPEC_MCP_ARGUMENTS"   // the create's exact arguments, a JSON object, without the key
)

// Retryable is the member of an isError result's structuredContent that
// makes the error transient (true): any other tool error is a final
// refusal of that call.
const Retryable = "retryable"

// MCP is where a client over MCP reaches the server, and with what.
type MCP struct {
	Command, URL         string
	CreateTool, FindTool string
	KeyArg, Arguments    string
}

// Environ is in the form exec.Cmd.Env takes: the MCP variables, then the
// shared ones of in.
func (m MCP) Environ(in Inputs) []string {
	env := []string{
		EnvMCPCreateTool + "=" + m.CreateTool,
		EnvMCPFindTool + "=" + m.FindTool,
		EnvMCPKeyArg + "=" + m.KeyArg,
		EnvMCPArguments + "=" + m.Arguments,
	}
	if m.URL != "" {
		env = append(env, EnvMCPURL+"="+m.URL)
	} else {
		env = append(env, EnvMCPCommand+"="+m.Command)
	}
	for _, kv := range in.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case EnvMarker, EnvStateDir, EnvRunID, EnvAttemptBudget, EnvDeadline, EnvAttemptTimeout:
			env = append(env, kv)
		}
	}
	return env
}

// MCPFromEnv reads a client over MCP's inputs from the process
// environment; in holds the shared ones (Payload is the arguments).
func MCPFromEnv() (MCP, Inputs, error) {
	m := MCP{
		Command: os.Getenv(EnvMCPCommand), URL: os.Getenv(EnvMCPURL),
		CreateTool: os.Getenv(EnvMCPCreateTool), FindTool: os.Getenv(EnvMCPFindTool),
		KeyArg: os.Getenv(EnvMCPKeyArg), Arguments: os.Getenv(EnvMCPArguments),
	}
	if (m.Command == "") == (m.URL == "") {
		return m, Inputs{}, fmt.Errorf("not run by `idemspec client --mcp`: want exactly one of %s and %s", EnvMCPCommand, EnvMCPURL)
	}
	var missing []string
	for _, v := range []struct{ name, value string }{{EnvMCPCreateTool, m.CreateTool}, {EnvMCPFindTool, m.FindTool}, {EnvMCPKeyArg, m.KeyArg}, {EnvMCPArguments, m.Arguments}} {
		if v.value == "" {
			missing = append(missing, v.name)
		}
	}
	if len(missing) > 0 {
		return m, Inputs{}, fmt.Errorf("not run by `idemspec client --mcp`: %s not set", strings.Join(missing, ", "))
	}
	in, err := sharedFromEnv()
	in.Payload = m.Arguments
	return m, in, err
}

// sharedFromEnv reads the variables a client over MCP shares with one
// over HTTP.
func sharedFromEnv() (Inputs, error) {
	in := Inputs{Marker: os.Getenv(EnvMarker), StateDir: os.Getenv(EnvStateDir), RunID: os.Getenv(EnvRunID)}
	if in.Marker == "" || in.StateDir == "" {
		return in, fmt.Errorf("not run by `idemspec client --mcp`: %s and %s must be set", EnvMarker, EnvStateDir)
	}
	return in, in.readBounds()
}
