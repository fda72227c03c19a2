package mcpside

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/idemspec/idemspec/fakes/mcpserver"
	"github.com/idemspec/idemspec/internal/toolfault"
)

// A new key is C1's alone: the digest C2 compares leaves the key out,
// and the arguments' order does not change it.
func TestArgumentsDigestLeavesTheKeyOut(t *testing.T) {
	a := argumentsDigest(map[string]any{"idempotency_key": "k1", "marker": "m", "amount": 1.0})
	b := argumentsDigest(map[string]any{"amount": 1.0, "marker": "m", "idempotency_key": "k2"})
	c := argumentsDigest(map[string]any{"idempotency_key": "k1", "marker": "m", "amount": 2.0})
	if a != b || a == c {
		t.Fatalf("digests %s %s %s: want the first two equal, the third not", a, b, c)
	}
}

func TestOutcome(t *testing.T) {
	for _, c := range []struct {
		answer string
		want   int
	}{
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`, http.StatusOK},
		{`{"jsonrpc":"2.0","id":1,"result":{"isError":true,"structuredContent":{"retryable":true}}}`, http.StatusServiceUnavailable},
		{`{"jsonrpc":"2.0","id":1,"result":{"isError":true,"structuredContent":{"retryable":false}}}`, http.StatusUnprocessableEntity},
		{`{"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[{"type":"text","text":"no"}]}}`, http.StatusUnprocessableEntity},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params"}}`, http.StatusBadRequest},
		{`not json`, http.StatusBadRequest},
	} {
		if got := outcome([]byte(c.answer)); got != c.want {
			t.Errorf("%s: %d, want %d", c.answer, got, c.want)
		}
	}
	// The side's own answers read as the statuses they stand for.
	for _, status := range []int{http.StatusServiceUnavailable, http.StatusUnprocessableEntity} {
		if got := outcome(toolError("7", status)); got != status {
			t.Errorf("toolError(%d) reads as %d", status, got)
		}
		// And each is one the server could give: its structured content
		// fits create_record's declared outputSchema.
		var m struct {
			Result struct {
				StructuredContent map[string]any `json:"structuredContent"`
			} `json:"result"`
		}
		if err := json.Unmarshal(toolError("7", status), &m); err != nil || !toolfault.Fits(mcpserver.RecordOutput, m.Result.StructuredContent) {
			t.Errorf("toolError(%d)'s structured content %v does not fit create_record's outputSchema (%v)", status, m.Result.StructuredContent, err)
		}
	}
}

// Only the create and find tools' calls are watched, and an answer is
// told from a request by its id and method.
func TestWatched(t *testing.T) {
	c := watched([]byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"create_record","arguments":{"idempotency_key":"k","marker":"m"}}}`))
	if c == nil || !c.isCreate || c.key != "k" || c.id != "3" {
		t.Fatalf("create call: %+v", c)
	}
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"put_note","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	} {
		if c := watched([]byte(line)); c != nil {
			t.Errorf("%s watched: %+v", line, c)
		}
	}
	if id := answerID([]byte(`{"jsonrpc":"2.0","id":3,"result":{}}`)); id != "3" {
		t.Errorf("answer id %q", id)
	}
	if id := answerID([]byte(`{"jsonrpc":"2.0","id":9,"method":"ping"}`)); id != "" {
		t.Errorf("a server's request read as an answer: %q", id)
	}
}
