package main_test

import (
	"net"
	"strings"
	"testing"
)

// Bad flags of client mode over MCP, and a relay given where it cannot
// go, exit 2 with a line that says what, never a stack.
func TestClientMCPUsageErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"client", "--mcp", "--cmd", "true", "--mcp-transport", "sse"}, `--mcp-transport "sse": must be stdio or http`},
		{[]string{"client", "--mcp", "--cmd", "true", "--key-in", "body"}, "over --mcp the key is the create tool's idempotency_key argument"},
		{[]string{"client", "--mcp", "--cmd", "true", "--workflow"}, "a job runs over HTTP only"},
		{[]string{"agent", "--mcp"}, "not run by `idemspec client --mcp`"},
		{[]string{"serve", "--mcp", "--relay", "192.0.2.1:80"}, "want a loopback host:port"},
		{[]string{"serve", "--mcp", "--relay", closed}, "relay to the MCP server"},
	} {
		r := idemspec(t, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Contains(r.stderr, "goroutine") {
			t.Errorf("idemspec %v: exit %d, stderr %q, want 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
}
