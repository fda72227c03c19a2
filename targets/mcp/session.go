package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxListPages bounds tools/list pagination: a server that hands out
// cursors forever is an error, not a hang.
const maxListPages = 100

// Session is one MCP session with a server.
type Session struct {
	cs *sdk.ClientSession
}

// client is the harness as an MCP client: it offers no capability
// (sampling, roots, elicitation), so a server cannot call back into it.
func client() *sdk.Client {
	return sdk.NewClient(&sdk.Implementation{Name: "idemspec", Version: "1"}, nil)
}

// connect opens a session over t.
func connect(ctx context.Context, t sdk.Transport) (*Session, error) {
	cs, err := client().Connect(ctx, t, nil)
	if err != nil {
		return nil, fmt.Errorf("MCP initialize: %w", err)
	}
	return &Session{cs: cs}, nil
}

// Close ends the session.
func (s *Session) Close() error { return s.cs.Close() }

// Tools is tools/list, every page, sorted as sent.
func (s *Session) Tools(ctx context.Context) ([]Tool, error) {
	var out []Tool
	cursor := ""
	for range maxListPages {
		res, err := s.cs.ListTools(ctx, &sdk.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		for _, t := range res.Tools {
			out = append(out, toolOf(t))
		}
		if res.NextCursor == "" {
			return out, nil
		}
		cursor = res.NextCursor
	}
	return nil, fmt.Errorf("tools/list: still paginating after %d pages", maxListPages)
}

// Answer is what a tools/call returned.
type Answer struct {
	// IsError: the tool answered with an error result (a refusal, as an
	// agent sees it), not a protocol error.
	IsError bool
	// Text is the result's text content, joined; Structured its
	// structured content as JSON, if any.
	Text       string
	Structured json.RawMessage
}

// Content is what the answer says, for comparing states: the structured
// content if there is one, else the text.
func (a Answer) Content() string {
	if len(a.Structured) > 0 {
		return string(a.Structured)
	}
	return a.Text
}

// Call is tools/call with args (a JSON object).
func (s *Session) Call(ctx context.Context, tool string, args map[string]any) (Answer, error) {
	if args == nil {
		// "arguments": null is refused by servers that validate it as an
		// object (the TypeScript SDK's do): no argument is {}.
		args = map[string]any{}
	}
	res, err := s.cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return Answer{}, fmt.Errorf("tools/call %s: %w", tool, err)
	}
	var texts []string
	for _, c := range res.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			texts = append(texts, t.Text)
		}
	}
	out := Answer{IsError: res.IsError, Text: strings.Join(texts, "\n")}
	if res.StructuredContent != nil {
		out.Structured, _ = json.Marshal(res.StructuredContent)
	}
	return out, nil
}

// Forward is tools/call with the caller's own parameters, its result as
// the server sent it: a relay hands it on unchanged.
func (s *Session) Forward(ctx context.Context, params *sdk.CallToolParams) (*sdk.CallToolResult, error) {
	return s.cs.CallTool(ctx, params)
}

// Server is what the server said of itself when the session began.
func (s *Session) Server() *sdk.Implementation {
	if r := s.cs.InitializeResult(); r != nil && r.ServerInfo != nil {
		return r.ServerInfo
	}
	return &sdk.Implementation{Name: "mcp-server", Version: "unknown"}
}

// Refused reports whether err is a JSON-RPC error the server answered
// with (it heard the call and said no), as opposed to no answer at all
// (a broken transport, a timeout): only the latter may have applied
// unseen.
func Refused(err error) bool {
	var w *jsonrpc.Error
	return errors.As(err, &w)
}
