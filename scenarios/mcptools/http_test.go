package mcptools_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/fakes/mcpserver"
	"github.com/idemspec/idemspec/scenarios/mcptools"
	"github.com/idemspec/idemspec/targets"
)

// startHTTP runs the test binary as the mutant over streamable HTTP, a
// managed process behind the lanes.
func startHTTP(t *testing.T, mutant string) *mcptools.HTTP {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dir := t.TempDir()
	target, err := targets.ParseMCP("http.yaml", mcpserver.SelfHTTPFile(mutant, filepath.Join(dir, "state.json")))
	if err != nil {
		t.Fatal(err)
	}
	if err := target.CheckRemote(false); err != nil {
		t.Fatal(err)
	}
	srv, err := mcptools.StartHTTP(ctx, target, dir, mcptools.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// TestHTTPMatrix is the detection matrix over streamable HTTP through
// the lanes: answers cut on the faulty lane, restarts and crashes of the
// managed process. Same verdicts as over stdio.
func TestHTTPMatrix(t *testing.T) {
	t.Parallel()
	d := design(t)
	for _, m := range mcpserver.Mutants() {
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			srv := startHTTP(t, m.Name)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			tools, err := srv.Session().Tools(ctx)
			if err != nil {
				t.Fatal(err)
			}
			checkVerdicts(t, d, m, audit(t, srv, tools, settingsFor(m)))
		})
	}
}

// TestHTTPLostCallApplies: a call whose answer is cut on the faulty lane
// ends in an error at once, yet the server ran it; the session on the
// clean lane goes on.
func TestHTTPLostCallApplies(t *testing.T) {
	srv := startHTTP(t, mcpserver.Reference)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	_, err := srv.CallLost(ctx, mcpserver.ToolAppend, map[string]any{"text": "idm-lost-line"})
	if err == nil || errors.Is(err, mcptools.ErrNotCut) {
		t.Fatalf("the lost call: %v, want its answer cut", err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the lost call ran to its context's deadline after %s: the cut should end it when the answer starts", time.Since(start))
	}
	a, err := srv.Call(ctx, mcpserver.ToolList, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(a.Text, "idm-lost-line"); n != 1 {
		t.Errorf("the state holds the lost call's line %d times, want 1: %s", n, a.Text)
	}
}

// TestHTTPURLRule: mcp.url is held to the one loopback rule.
func TestHTTPURLRule(t *testing.T) {
	for _, c := range []struct {
		file string
		ok   bool
	}{
		{"mcp: {url: 'http://localhost:9/mcp'}\n", true},
		{"mcp: {url: 'http://mcp.example.com/mcp'}\n", false},
		{"mcp: {url: 'http://mcp.example.com/mcp'}\nallow_remote: true\n", true},
	} {
		target, err := targets.ParseMCP("t.yaml", []byte(c.file))
		if err != nil {
			t.Fatal(err)
		}
		if err := target.CheckRemote(false); (err == nil) != c.ok {
			t.Errorf("%q: CheckRemote = %v, want ok %v", c.file, err, c.ok)
		}
	}
	if _, err := targets.ParseMCP("t.yaml", []byte("mcp: {url: 'ftp://x/'}\n")); err == nil || !strings.Contains(err.Error(), "t.yaml:1: mcp.url") {
		t.Errorf("a bad URL: %v, want an error naming t.yaml:1: mcp.url", err)
	}
}
