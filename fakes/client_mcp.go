package fakes

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/idemspec/idemspec/fakes/mutant"
	"github.com/idemspec/idemspec/harness/agent"
	"github.com/idemspec/idemspec/harness/retry"
)

// The reference client over MCP (`idemspec agent --mcp`) is the
// reference client with its sends made tool calls: the same journal,
// budget, deadline, classification and reconciliation, so every client
// mutant is the same step replaced here too. A create request becomes a
// call of the create tool with the request's arguments and key; a
// look-up, a call of the find tool.

// mcpKeyHeader carries the key from a create request to its tool call:
// the requests never leave the process.
const mcpKeyHeader = "Idempotency-Key"

// mcpClient is the reference client's steps over the session tools.
func mcpClient(in agent.Inputs, tools *mcpTools) clientSteps {
	return clientSteps{
		journal: filepath.Join(in.StateDir, "journal.db"),
		create: func(ctx context.Context, key string, payload []byte) (*http.Request, error) {
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://mcp.invalid/"+tools.m.CreateTool, bytes.NewReader(payload))
			if err != nil {
				return nil, err
			}
			req.Header.Set(mcpKeyHeader, key)
			return req, nil
		},
		doer:       tools,
		reconciler: mcpFinder{tools},
		submit: func(ctx context.Context, c *retry.Client, id string, payload []byte) (retry.Result, error) {
			return c.Submit(ctx, id, payload)
		},
	}
}

// RunMCPClient is the reference client over MCP, or the mutant m of it:
// it creates one record through the create tool as the contract says
// (harness/agent's MCP) and prints its Result, like RunClient.
func RunMCPClient(ctx context.Context, m agent.MCP, in agent.Inputs, mut mutant.Mutant, stdout, stderr io.Writer) int {
	tools := &mcpTools{m: m}
	defer tools.close()
	return runClient(ctx, in, mcpClient(in, tools), mut, stdout, stderr)
}

// mcpTools is a retry.Doer over one MCP session at a time: a session
// that failed (a timeout, a closed pipe, a restarted server) is dropped,
// and the next call starts a new one.
type mcpTools struct {
	m agent.MCP

	mu      sync.Mutex
	session *sdk.ClientSession
}

// Do makes a create request a create tool call, anything else a find
// call, and answers as the HTTP reference server would: 200 with the
// tool's JSON, 503 for a transient tool error, 422 for a final one. A
// call that got no answer is an error, after the trace has seen the
// call written; a session that could not start is one before it.
func (t *mcpTools) Do(req *http.Request) (*http.Response, error) {
	args := map[string]any{}
	tool := t.m.FindTool
	if req.Method == http.MethodPost {
		tool = t.m.CreateTool
		d := json.NewDecoder(req.Body)
		d.UseNumber()
		if err := d.Decode(&args); err != nil {
			return nil, fmt.Errorf("the create's arguments: %w", err)
		}
	}
	args[t.m.KeyArg] = req.Header.Get(mcpKeyHeader)
	s, err := t.connect(req.Context())
	if err != nil {
		return nil, err
	}
	if trace := httptrace.ContextClientTrace(req.Context()); trace != nil && trace.WroteRequest != nil {
		trace.WroteRequest(httptrace.WroteRequestInfo{})
	}
	res, err := s.CallTool(req.Context(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.drop(s)
		return nil, fmt.Errorf("%s: %w", tool, err)
	}
	status := http.StatusOK
	if res.IsError {
		status = http.StatusUnprocessableEntity
		if sc, ok := res.StructuredContent.(map[string]any); ok && sc[agent.Retryable] == true {
			status = http.StatusServiceUnavailable
		}
	}
	return &http.Response{StatusCode: status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(text(res))), Request: req}, nil
}

// text is a tool result's text content.
func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// connect returns the open session or starts one, within the attempt's
// ctx: the command over stdio (a process that outlives the attempt), or
// the URL over streamable HTTP (no reconnection of its own, no
// standalone stream, never a reused connection).
func (t *mcpTools) connect(ctx context.Context) (*sdk.ClientSession, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.session != nil {
		return t.session, nil
	}
	var tr sdk.Transport
	if t.m.URL != "" {
		tr = &sdk.StreamableClientTransport{
			Endpoint: t.m.URL, MaxRetries: -1, DisableStandaloneSSE: true,
			HTTPClient: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: -1}, CheckRedirect: noRedirect},
		}
	} else {
		tr = &sdk.CommandTransport{Command: exec.Command("/bin/sh", "-c", t.m.Command), TerminateDuration: time.Second}
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "idemspec-agent", Version: "1"}, nil)
	s, err := c.Connect(ctx, tr, nil)
	if err != nil {
		return nil, fmt.Errorf("connect to the MCP server: %w", err)
	}
	t.session = s
	return s, nil
}

// drop ends a session that failed, so the next call starts anew.
func (t *mcpTools) drop(s *sdk.ClientSession) {
	t.mu.Lock()
	if t.session == s {
		t.session = nil
	}
	t.mu.Unlock()
	go s.Close() // a closed pipe's or a lost server's close may wait
}

func (t *mcpTools) close() {
	t.mu.Lock()
	s := t.session
	t.session = nil
	t.mu.Unlock()
	if s != nil {
		s.Close()
	}
}

// mcpFinder reconciles through the find tool: found names the record,
// not found means the key made nothing.
type mcpFinder struct{ tools *mcpTools }

func (f mcpFinder) Reconcile(ctx context.Context, op retry.Operation) (retry.Finding, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://mcp.invalid/"+f.tools.m.FindTool, nil)
	if err != nil {
		return retry.Finding{}, err
	}
	req.Header.Set(mcpKeyHeader, op.Key)
	resp, err := f.tools.Do(req)
	if err != nil {
		return retry.Finding{}, err
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return retry.Finding{}, fmt.Errorf("%s answered a tool error: %s", f.tools.m.FindTool, body)
	}
	var found struct {
		Found bool `json:"found"`
		ID    any  `json:"id"`
	}
	if err := json.Unmarshal(body, &found); err != nil {
		return retry.Finding{}, fmt.Errorf("%s's answer: %w", f.tools.m.FindTool, err)
	}
	if !found.Found {
		return retry.Finding{Fate: retry.NotFound}, nil
	}
	return retry.Finding{Fate: retry.Found, ResourceID: fmt.Sprint(found.ID)}, nil
}
