package scenarios

import (
	"strings"
	"testing"
)

// The fault lines of C3 and C7 name who answered the creates, as the
// exchange tables do: idemspec's interposer or relay, never "the
// server" for an answer the server never gave.
func TestAnswererNamesWhoAnswered(t *testing.T) {
	for _, c := range []struct {
		name string
		ce   *ClientEnv
		want string
	}{
		{"reference server", &ClientEnv{}, "by idemspec's reference server itself"},
		{"interposer", &ClientEnv{Wire: &ClientWire{}}, "by idemspec (not forwarded to the API)"},
		{"relay", &ClientEnv{MCP: &TargetMCP{}}, "by idemspec's relay"},
		{"MCP side", &ClientEnv{MCP: &ClientMCP{}}, "not run by the reference MCP server"},
	} {
		got := c.ce.answerer()
		if !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
		if c.name != "reference server" && strings.Contains(got, "by the server") {
			t.Errorf("%s: %q says the server answered", c.name, got)
		}
	}
}
