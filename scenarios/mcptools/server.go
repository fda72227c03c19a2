package mcptools

import (
	"context"
	"time"

	"github.com/idemspec/idemspec/targets/mcp"
)

// Server is an MCP server as the checks drive it: over stdio (a managed
// process) or streamable HTTP (through the harness's lanes).
type Server interface {
	// Call calls a tool and returns its answer.
	Call(ctx context.Context, tool string, args map[string]any) (mcp.Answer, error)
	// CallLost calls a tool so that its answer is lost: on stdio the
	// harness discards it, as a timed-out agent does; on HTTP it is cut
	// on the faulty lane. What came back, if anything, is returned for
	// the record only.
	CallLost(ctx context.Context, tool string, args map[string]any) (mcp.Answer, error)
	// Restart stops the server cleanly and starts it again.
	Restart(ctx context.Context) error
	// CrashDuring calls a tool, kills the server while the call is in
	// flight (once the call is delivered, and not before after has passed
	// since it was sent; 0: as soon as the transport allows), and starts
	// it again; it says where the crash landed. A call answered before
	// that moment is crashed after its answer, and the error is a
	// *mcp.CrashMissed: no evidence of a crash mid-call.
	CrashDuring(ctx context.Context, tool string, args map[string]any, after time.Duration) (string, error)
	// CannotRestart says why the server cannot be restarted ("": it can).
	CannotRestart() string
}
