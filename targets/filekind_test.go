package targets_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/targets"
)

// TestMCPFileIsKnownByItsKind: a file with a top-level mcp: is an MCP
// server's, refused as an HTTP target by its kind alone (no "unknown
// field", no missing base_url); an empty mcp: is no MCP server.
func TestMCPFileIsKnownByItsKind(t *testing.T) {
	_, err := targets.Parse("notes.yaml", []byte("name: notes\nmcp:\n  command: idemspec serve --mcp\noracle: {tool: list_notes}\n"))
	var m *targets.MCPFileError
	if !errors.As(err, &m) || m.File != "notes.yaml" {
		t.Fatalf("an MCP server's file: %v, want an *MCPFileError naming notes.yaml", err)
	}
	_, err = targets.Parse("empty.yaml", []byte("mcp:\nbase_url: http://127.0.0.1:1\n"))
	if errors.As(err, &m) || err == nil || !strings.Contains(err.Error(), "mcp") {
		t.Errorf("an empty mcp: is %v, want the file's errors (mcp: an unknown field)", err)
	}
}
