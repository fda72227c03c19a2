package mcpside

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"time"

	"github.com/idemspec/idemspec/fakes/mcpserver"
	"github.com/idemspec/idemspec/harness/agent"
	"github.com/idemspec/idemspec/internal/toolfault"
)

// message is the part of a JSON-RPC message the side reads.
type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	} `json:"params"`
	Result *struct {
		IsError           bool           `json:"isError"`
		StructuredContent map[string]any `json:"structuredContent"`
	} `json:"result,omitempty"`
	Error json.RawMessage `json:"error,omitempty"`
}

// call is one tools/call of a logged tool, until its answer.
type call struct {
	id        string
	tool      string
	key, hash string
	at        time.Time
	isCreate  bool
}

// watched reads a client's message: a tools/call of the create or the
// find tool is a call to log (nil for anything else).
func watched(line []byte) *call {
	var m message
	if json.Unmarshal(line, &m) != nil || m.Method != "tools/call" {
		return nil
	}
	if m.Params.Name != mcpserver.ToolCreateRecord && m.Params.Name != mcpserver.ToolFindRecord {
		return nil
	}
	key, _ := m.Params.Arguments[mcpserver.KeyArgument].(string)
	return &call{id: string(m.ID), tool: m.Params.Name, key: key, hash: argumentsDigest(m.Params.Arguments), at: time.Now(),
		isCreate: m.Params.Name == mcpserver.ToolCreateRecord}
}

// argumentsDigest is the sha256 of the arguments without the key, in
// one canonical form (members sorted): C2 compares what a retry resends,
// and a new key is C1's alone.
func argumentsDigest(args map[string]any) string {
	rest := map[string]any{}
	for k, v := range args {
		if k != mcpserver.KeyArgument {
			rest[k] = v
		}
	}
	b, _ := json.Marshal(rest)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// answerID is the id of a server's answer ("" for a request or a
// notification).
func answerID(line []byte) string {
	var m message
	if json.Unmarshal(line, &m) != nil || m.Method != "" || (m.Result == nil && m.Error == nil) {
		return ""
	}
	return string(m.ID)
}

// outcome is the status the log records for an answer, in HTTP's terms
// so the client checks read it as they read the HTTP server's log: 200
// a result, 503 a transient tool error, 422 a final one (the contract:
// a tool error is final unless it says retryable), 400 a protocol error.
func outcome(line []byte) int {
	var m message
	if err := json.Unmarshal(line, &m); err != nil || m.Error != nil || m.Result == nil {
		return http.StatusBadRequest
	}
	switch {
	case !m.Result.IsError:
		return http.StatusOK
	case m.Result.StructuredContent[agent.Retryable] == true:
		return http.StatusServiceUnavailable
	}
	return http.StatusUnprocessableEntity
}

// toolError is the answer the side gives instead of the server: a tool
// error, transient for a 5xx status and final otherwise, marked so in
// its structured content as the contract says (and as create_record's
// declared outputSchema allows: mcpserver.RecordOutput).
func toolError(id string, status int) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "result": map[string]any{
		"content":           []map[string]any{{"type": "text", "text": "idemspec: " + toolfault.Text(status)}},
		"structuredContent": toolfault.Structured(status),
		"isError":           true,
	}})
	return bytes.TrimSpace(b)
}
