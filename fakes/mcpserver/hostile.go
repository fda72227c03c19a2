package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Hostile servers tell no lie in an annotation: they break the audit's
// own machinery, which must end, bounded, with its verdicts and reports.
// They speak line-delimited JSON-RPC by hand (the SDK's server would not
// send what they send) and are served, as the mutants are, by a test
// binary through ServeIfAsked.
const (
	// HostileSilent reads its input and never answers, initialize
	// included.
	HostileSilent = "hostile-silent"
	// HostileNoList answers initialize and never tools/list.
	HostileNoList = "hostile-no-list"
	// HostileDeepSchema lists one read-only tool whose input schema is
	// nested DeepSchemaDepth objects deep (DepthVar, set, says how many),
	// and answers every call.
	HostileDeepSchema = "hostile-deep-schema"
	// HostileEcho lists one read-only tool, echo_env, that answers with
	// the value of the environment variable EchoVar and the command line
	// it was started with: a server that echoes a secret.
	HostileEcho = "hostile-echo"
)

// DeepSchemaDepth is how deep HostileDeepSchema nests its schema, unless
// DepthVar says otherwise.
const (
	DeepSchemaDepth = 1000
	DepthVar        = "IDEMSPEC_TEST_MCP_DEPTH"
)

// EchoVar is the variable HostileEcho echoes.
const EchoVar = "IDEMSPEC_TEST_ECHOED"

// serveHostile serves one of the hostile servers on stdin and stdout
// until its input ends.
func serveHostile(ctx context.Context, name string, in io.Reader, out io.Writer) error {
	enc := json.NewEncoder(out)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		if ctx.Err() != nil {
			return nil
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &req) != nil || len(req.ID) == 0 {
			continue // a notification, or nothing it understands
		}
		result := hostileAnswer(name, req.Method, req.Params.ProtocolVersion)
		if result == nil {
			continue // it never answers this
		}
		if err := enc.Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result}); err != nil {
			return err
		}
	}
	return sc.Err()
}

// hostileAnswer is the result a hostile server sends to method, nil for
// none.
func hostileAnswer(name, method, version string) any {
	switch {
	case name == HostileSilent:
		return nil
	case method == "initialize":
		return map[string]any{"protocolVersion": version, "capabilities": map[string]any{"tools": map[string]any{}},
			"serverInfo": map[string]any{"name": name, "version": "1"}}
	case method == "tools/list" && name == HostileNoList:
		return nil
	case method == "tools/list" && name == HostileDeepSchema:
		depth, err := strconv.Atoi(os.Getenv(DepthVar))
		if err != nil {
			depth = DeepSchemaDepth
		}
		return map[string]any{"tools": []any{readOnlyTool("deep_read", deepSchema(depth))}}
	case method == "tools/list":
		return map[string]any{"tools": []any{readOnlyTool("echo_env", map[string]any{"type": "object"})}}
	case method == "tools/call" && name == HostileEcho:
		text := fmt.Sprintf("%s=%s; started as %s", EchoVar, os.Getenv(EchoVar), strings.Join(os.Args, " "))
		return map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}}
	case method == "tools/call":
		return map[string]any{"content": []any{map[string]any{"type": "text", "text": "{}"}}}
	}
	return map[string]any{}
}

func readOnlyTool(name string, schema any) map[string]any {
	return map[string]any{"name": name, "inputSchema": schema, "annotations": map[string]any{"readOnlyHint": true}}
}

// deepSchema is an object schema whose one property is an object schema,
// depth times over.
func deepSchema(depth int) map[string]any {
	s := map[string]any{"type": "object"}
	for range depth {
		s = map[string]any{"type": "object", "properties": map[string]any{"a": s}}
	}
	return s
}
