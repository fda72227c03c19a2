package mcpserver

import (
	"context"
	"errors"
	"io"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/idemspec/idemspec/harness/upstream"
)

// The tools client mode serves to an agent under test (Options.Records):
// a create keyed by an idempotency_key argument, and a read that finds
// what a key made. They are not part of the audited reference, whose
// verdicts are designed tool by tool.
const (
	ToolCreateRecord = upstream.ToolCreateRecord // a create keyed by idempotency_key
	ToolFindRecord   = upstream.ToolFindRecord   // read-only: the record a key made, if any
	// KeyArgument is the create's idempotency key argument.
	KeyArgument = upstream.KeyArgument
)

// Record is one record made by create_record.
type Record struct {
	ID     int    `json:"id"`
	Key    string `json:"idempotency_key"`
	Marker string `json:"marker"`
	Amount int    `json:"amount"`
}

type recordArgs struct {
	Key    string `json:"idempotency_key" jsonschema:"an idempotency key: a retry with the same key and arguments makes no second record"`
	Marker string `json:"marker" jsonschema:"what the record is for"`
	Amount int    `json:"amount" jsonschema:"the record's amount"`
}

type findArgs struct {
	Key string `json:"idempotency_key" jsonschema:"the key a create_record call carried"`
}

// RecordOutput is create_record's declared outputSchema: the record it
// made (or replayed), or the tool error of idemspec's client contract
// (docs/CLIENT-CONTRACT.md#over-mcp), whose structured content marks a
// transient error retryable. A client that validates structured content
// against it (the MCP TypeScript SDK does once it has listed the tools)
// accepts both, and nothing else: a fault idemspec injects must be an
// answer the server could give.
var RecordOutput = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"id":              map[string]any{"type": "integer"},
		"idempotency_key": map[string]any{"type": "string"},
		"marker":          map[string]any{"type": "string"},
		"amount":          map[string]any{"type": "integer"},
		"error":           map[string]any{"type": "string"},
		"retryable":       map[string]any{"type": "boolean"},
	},
	"additionalProperties": false,
}

// errRecordKeyReused refuses a key that comes back with other arguments:
// final, as a 422 is over HTTP.
var errRecordKeyReused = errors.New("idempotency_key already used with different arguments")

func addRecordTools(srv *sdk.Server, st *store, work time.Duration) {
	// Its answer is the record as JSON text and as structured content
	// (the SDK checks the latter against RecordOutput); its own errors
	// are tool errors with their text alone.
	sdk.AddTool(srv, &sdk.Tool{Name: ToolCreateRecord, Description: "Create a record; idempotency_key makes a retry safe.",
		Annotations: &sdk.ToolAnnotations{DestructiveHint: no(), OpenWorldHint: no()}, OutputSchema: RecordOutput},
		func(ctx context.Context, _ *sdk.CallToolRequest, in recordArgs) (*sdk.CallToolResult, *Record, error) {
			if in.Key == "" {
				return nil, nil, errors.New("idempotency_key is required")
			}
			time.Sleep(work)
			var out Record
			var err error
			if cerr := st.change(func(s *State) { out, err = createRecord(s, in) }); cerr != nil {
				return nil, nil, cerr
			}
			if err != nil {
				return nil, nil, err
			}
			res, _, err := answer(out)
			return res, &out, err
		})
	sdk.AddTool(srv, &sdk.Tool{Name: ToolFindRecord, Description: "Find the record an idempotency_key made.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: no()}},
		func(ctx context.Context, _ *sdk.CallToolRequest, in findArgs) (*sdk.CallToolResult, any, error) {
			var r Record
			var ok bool
			st.read(func(s *State) { r, ok = findRecord(s, in.Key) })
			if !ok {
				return answer(map[string]any{"found": false})
			}
			return answer(map[string]any{"found": true, "id": r.ID, "record": r})
		})
}

// createRecord makes one record per key, under the store's lock; a key
// that comes back with other arguments is refused.
func createRecord(st *State, in recordArgs) (Record, error) {
	if r, ok := findRecord(st, in.Key); ok {
		if r.Marker != in.Marker || r.Amount != in.Amount {
			return r, errRecordKeyReused
		}
		return r, nil
	}
	r := Record{ID: len(st.Records) + 1, Key: in.Key, Marker: in.Marker, Amount: in.Amount}
	st.Records = append(st.Records, r)
	return r, nil
}

func findRecord(st *State, key string) (Record, bool) {
	for _, r := range st.Records {
		if r.Key == key {
			return r, true
		}
	}
	return Record{}, false
}

// ServeIO serves one session over r and w (newline-delimited JSON, as
// over stdio) until the peer closes it or ctx ends: how client mode
// serves an agent's stdio connection from its own process.
func (s *Server) ServeIO(ctx context.Context, r io.ReadCloser, w io.WriteCloser) error {
	return s.mcp.Run(ctx, &sdk.IOTransport{Reader: r, Writer: w})
}
