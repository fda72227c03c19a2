package mcp_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/fakes/mcpserver"
	"github.com/idemspec/idemspec/targets/mcp"
)

func TestMain(m *testing.M) {
	mcpserver.ServeIfAsked()
	os.Exit(m.Run())
}

func start(t *testing.T, mutant, state string) (*mcp.Stdio, *mcp.Session) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd, env := mcpserver.SelfCommand(mutant, state)
	s := &mcp.Stdio{Command: cmd, Env: env, Grace: time.Second}
	t.Cleanup(func() { s.Close() })
	session, err := s.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return s, session
}

// TestDiscovery: tools/list gives every tool with its annotations (the
// specification's defaults applied) and its input schema.
func TestDiscovery(t *testing.T) {
	_, session := start(t, mcpserver.Reference, "")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	tools, err := session.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]mcp.Tool{}
	for _, tool := range tools {
		byName[tool.Name] = tool
	}
	for _, c := range []struct {
		name, claim, key string
		props            []string
	}{
		{mcpserver.ToolPut, "idempotent, destructive", "", []string{"name", "text"}},
		{mcpserver.ToolGet, "readOnly", "", []string{"name"}},
		{mcpserver.ToolList, "readOnly", "", nil},
		{mcpserver.ToolCreate, "not idempotent, not destructive", "request_id", []string{"request_id", "text"}},
		{mcpserver.ToolAppend, "not idempotent, not destructive", "", []string{"text"}},
	} {
		tool, ok := byName[c.name]
		if !ok {
			t.Fatalf("tools/list has no %s: %v", c.name, tools)
		}
		if got := tool.Claim(); got != c.claim {
			t.Errorf("%s claims %q, want %q", c.name, got, c.claim)
		}
		if got := tool.KeyProperty(""); got != c.key {
			t.Errorf("%s key property %q, want %q", c.name, got, c.key)
		}
		var names []string
		for _, p := range tool.Properties() {
			names = append(names, p.Name)
			if p.Type != "string" {
				t.Errorf("%s.%s has type %q, want string", c.name, p.Name, p.Type)
			}
		}
		if !slices.Equal(names, c.props) {
			t.Errorf("%s properties %v, want %v", c.name, names, c.props)
		}
	}
}

// TestRestartKeepsFileState: a restarted and a crashed server find the
// state their predecessor stored before answering.
func TestRestartKeepsFileState(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	s, session := start(t, mcpserver.Reference, state)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := session.Call(ctx, mcpserver.ToolPut, map[string]any{"name": "a", "text": "one"}); err != nil {
		t.Fatal(err)
	}
	for _, again := range []func(context.Context) error{s.Restart, s.Crash} {
		if err := again(ctx); err != nil {
			t.Fatal(err)
		}
		a, err := s.Session().Call(ctx, mcpserver.ToolGet, map[string]any{"name": "a"})
		if err != nil || a.IsError || !strings.Contains(a.Text, `"one"`) {
			t.Fatalf("after a restart get_note = %+v, %v; want the note", a, err)
		}
	}
}

// TestRefusalIsAToolError: create_note refuses a reused request_id with
// other arguments as a tool error, which an agent sees.
func TestRefusalIsAToolError(t *testing.T) {
	_, session := start(t, mcpserver.Reference, "")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	first, err := session.Call(ctx, mcpserver.ToolCreate, map[string]any{"request_id": "k", "text": "one"})
	if err != nil || first.IsError {
		t.Fatalf("create = %+v, %v", first, err)
	}
	again, err := session.Call(ctx, mcpserver.ToolCreate, map[string]any{"request_id": "k", "text": "two"})
	if err != nil || !again.IsError {
		t.Fatalf("create with a changed text = %+v, %v; want a tool error", again, err)
	}
}

// TestStartFailureSaysWhy: a command that is no MCP server fails to
// start with what it wrote on stderr.
func TestStartFailureSaysWhy(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := &mcp.Stdio{Command: "echo no such server >&2; exit 3"}
	defer s.Close()
	_, err := s.Start(ctx)
	if err == nil || !strings.Contains(err.Error(), "no such server") {
		t.Fatalf("Start = %v, want an error quoting stderr", err)
	}
}
