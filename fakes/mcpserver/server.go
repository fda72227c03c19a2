package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/idemspec/idemspec/fakes/mutant"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The reference's tools: one per case of the audit.
const (
	ToolPut    = "put_note"    // idempotent upsert
	ToolGet    = "get_note"    // read-only read of one note
	ToolList   = "list_notes"  // read-only read of the whole state: the oracle
	ToolCreate = "create_note" // a create keyed by request_id
	ToolAppend = "append_log"  // a plain append: neither idempotent nor keyed
)

// DefaultWork is how long a tool that changes the state works before it
// stores: long enough for a burst to overlap and a crash to land mid-call.
const DefaultWork = 20 * time.Millisecond

// Options configure a server.
type Options struct {
	Mutant    string        // "" or Reference for the correct server
	StatePath string        // "" keeps the state in memory
	Work      time.Duration // 0: DefaultWork
	// Records adds the tools client mode serves an agent (records.go).
	Records bool
}

// Server is the reference MCP server, or a mutant of it.
type Server struct {
	mcp    *sdk.Server
	mutant mutant.Mutant
}

// New builds a server; its state is read from opts.StatePath if that
// file exists.
func New(opts Options) (*Server, error) {
	m, err := LookupMutant(opts.Mutant)
	if err != nil {
		return nil, err
	}
	st, err := openStore(opts.StatePath)
	if err != nil {
		return nil, err
	}
	work := opts.Work
	if work <= 0 {
		work = DefaultWork
	}
	do := reference()
	if bug, ok := m.Change.(func(*steps)); ok {
		bug(&do)
	}
	s := &Server{mcp: sdk.NewServer(&sdk.Implementation{Name: "idemspec-reference", Version: "1"}, nil), mutant: m}
	addTools(s.mcp, st, do, work)
	if opts.Records {
		addRecordTools(s.mcp, st, work)
	}
	return s, nil
}

// Mutant is the mutant this server runs (Name is Reference for none).
func (s *Server) Mutant() mutant.Mutant { return s.mutant }

// ServeStdio serves one session over stdin and stdout until the client
// closes it or ctx ends.
func (s *Server) ServeStdio(ctx context.Context) error {
	return s.mcp.Run(ctx, &sdk.StdioTransport{})
}

// Handler serves streamable HTTP; every session shares the one state.
func (s *Server) Handler() http.Handler {
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.mcp }, &sdk.StreamableHTTPOptions{JSONResponse: true})
}

// ListenAndServe serves streamable HTTP on addr until ctx ends, then
// shuts down (bounded); listening is called with the address once the
// port is open.
func (s *Server) ListenAndServe(ctx context.Context, addr string, listening func(addr string)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	listening(ln.Addr().String())
	<-ctx.Done()
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	hs.Shutdown(shut)
	return nil
}

type putArgs struct {
	Name string `json:"name" jsonschema:"the note's name"`
	Text string `json:"text" jsonschema:"the note's text"`
}
type nameArgs struct {
	Name string `json:"name" jsonschema:"the note's name"`
}
type createArgs struct {
	RequestID string `json:"request_id" jsonschema:"an idempotency key: a retry with the same request_id makes no second note"`
	Text      string `json:"text" jsonschema:"the note's text"`
}
type textArgs struct {
	Text string `json:"text" jsonschema:"the line to append"`
}
type noArgs struct{}

func yes() *bool { t := true; return &t }
func no() *bool  { f := false; return &f }

func addTools(srv *sdk.Server, st *store, do steps, work time.Duration) {
	sdk.AddTool(srv, &sdk.Tool{Name: ToolPut, Description: "Set a note's text (creates the note if missing).", Annotations: do.putHints()},
		func(ctx context.Context, _ *sdk.CallToolRequest, in putArgs) (*sdk.CallToolResult, any, error) {
			if err := do.put(st, do.upsert, in.Name, in.Text, work); err != nil {
				return nil, nil, err
			}
			return answer(map[string]string{"name": in.Name, "text": in.Text})
		})
	// A missing note is an answer, not a tool error: the read ran, and an
	// audit that calls it with a fresh name sees it answered.
	sdk.AddTool(srv, &sdk.Tool{Name: ToolGet, Description: "Read one note (found: false when there is none).",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: no()}},
		func(ctx context.Context, _ *sdk.CallToolRequest, in nameArgs) (*sdk.CallToolResult, any, error) {
			text, ok, err := do.get(st, in.Name)
			if err != nil {
				return nil, nil, err
			}
			if !ok {
				return answer(map[string]any{"name": in.Name, "found": false})
			}
			return answer(map[string]any{"name": in.Name, "text": text, "found": true})
		})
	sdk.AddTool(srv, &sdk.Tool{Name: ToolList, Description: "Read every note, created note and log line.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: no()}},
		func(ctx context.Context, _ *sdk.CallToolRequest, _ noArgs) (*sdk.CallToolResult, any, error) {
			var b []byte
			var err error
			st.read(func(s *State) { b, err = json.Marshal(s) })
			if err != nil {
				return nil, nil, err
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(b)}}}, nil, nil
		})
	sdk.AddTool(srv, &sdk.Tool{Name: ToolCreate, Description: "Create a note; request_id makes a retry safe.",
		Annotations: &sdk.ToolAnnotations{DestructiveHint: no(), OpenWorldHint: no()}},
		func(ctx context.Context, _ *sdk.CallToolRequest, in createArgs) (*sdk.CallToolResult, any, error) {
			if in.RequestID == "" {
				return nil, nil, fmt.Errorf("request_id is required")
			}
			c, err := do.create(st, in.RequestID, in.Text, work)
			if err != nil {
				return nil, nil, err
			}
			return answer(c)
		})
	sdk.AddTool(srv, &sdk.Tool{Name: ToolAppend, Description: "Append a line to the log.",
		Annotations: &sdk.ToolAnnotations{DestructiveHint: no(), OpenWorldHint: no()}},
		func(ctx context.Context, _ *sdk.CallToolRequest, in textArgs) (*sdk.CallToolResult, any, error) {
			time.Sleep(work)
			if err := st.change(func(s *State) { s.Log = append(s.Log, in.Text) }); err != nil {
				return nil, nil, err
			}
			return answer(map[string]string{"appended": in.Text})
		})
}

// answer is a tool result holding v as JSON text.
func answer(v any) (*sdk.CallToolResult, any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, nil, err
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(b)}}}, nil, nil
}
