package main_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The unmodified agent `client --mcp --target` is tried on: this test
// binary, run as a program that knows nothing of idemspec. It reads its
// MCP server from its own variables (a stdio command in AGENT_MCP_SERVER,
// or a URL in AGENT_MCP_URL), keeps its key in its working directory
// (written before the first send), and makes one call of AGENT_TOOL with
// AGENT_ARGS ({{KEY}} replaced by the key), retrying a lost or retryable
// answer up to three times, after a look-up (AGENT_LOOKUP, a read tool
// whose answer names the key when the call went through). The mutant
// (mint) draws a new key for every attempt; quiet is the correct agent
// printing no result, its exit code its only word (0 SUCCEEDED, 1
// FAILED, 3 UNKNOWN_RESULT).
const (
	testAgentMode = "IDEMSPEC_TEST_AGENT" // "correct", "mint" or "quiet"
	agentAttempts = 3
	agentCallTime = 3 * time.Second
)

// testAgent is the --cmd that runs this binary as the agent.
func testAgent(mode, tool, args, lookup string) string {
	self, _ := os.Executable()
	return fmt.Sprintf("%s=%s AGENT_TOOL=%s AGENT_ARGS='%s' AGENT_LOOKUP=%s %s", testAgentMode, mode, tool, args, lookup, self)
}

func runTestAgent() int {
	key, err := agentKey()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	for attempt := 1; attempt <= agentAttempts; attempt++ {
		if os.Getenv(testAgentMode) == "mint" && attempt > 1 {
			key = newAgentKey()
		}
		done, final := agentAttempt(key, attempt > 1)
		switch {
		case done:
			return agentEnd("SUCCEEDED", 0)
		case final:
			return agentEnd("FAILED", 1)
		}
	}
	return agentEnd("UNKNOWN_RESULT", 3)
}

// agentEnd prints the end state as the result line (not in quiet mode)
// and returns the exit code.
func agentEnd(state string, code int) int {
	if os.Getenv(testAgentMode) != "quiet" {
		fmt.Printf("{\"state\":%q}\n", state)
	}
	return code
}

// agentKey is the key in the working directory, or a new one saved
// there before it is sent.
func agentKey() (string, error) {
	if b, err := os.ReadFile("key"); err == nil {
		return strings.TrimSpace(string(b)), nil
	}
	k := newAgentKey()
	return k, os.WriteFile("key", []byte(k), 0o644)
}

func newAgentKey() string {
	b := make([]byte, 8)
	rand.Read(b)
	return "k" + hex.EncodeToString(b)
}

// agentAttempt is one session: a look-up first when resending, then the
// call. done: the call went through; final: the server refused it.
func agentAttempt(key string, resend bool) (done, final bool) {
	ctx, cancel := context.WithTimeout(context.Background(), agentCallTime)
	defer cancel()
	var tr sdk.Transport
	if u := os.Getenv("AGENT_MCP_URL"); u != "" {
		tr = &sdk.StreamableClientTransport{Endpoint: u, MaxRetries: -1, DisableStandaloneSSE: true}
	} else {
		tr = &sdk.CommandTransport{Command: exec.Command("/bin/sh", "-c", os.Getenv("AGENT_MCP_SERVER")), TerminateDuration: time.Second}
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-agent", Version: "1"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "connect:", err)
		return false, false
	}
	defer cs.Close()
	if lookup := os.Getenv("AGENT_LOOKUP"); resend && lookup != "" {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: lookup, Arguments: map[string]any{}})
		if err == nil && !res.IsError && strings.Contains(agentText(res), key) {
			return true, false
		}
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(strings.ReplaceAll(os.Getenv("AGENT_ARGS"), "{{KEY}}", key)), &args); err != nil {
		fmt.Fprintln(os.Stderr, "AGENT_ARGS:", err)
		return false, true
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: os.Getenv("AGENT_TOOL"), Arguments: args})
	switch {
	case err != nil:
		fmt.Fprintln(os.Stderr, "call:", err)
		return false, false
	case res.IsError:
		sc, _ := res.StructuredContent.(map[string]any)
		return false, sc["retryable"] != true
	}
	return true, false
}

func agentText(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}
