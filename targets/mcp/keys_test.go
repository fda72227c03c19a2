package mcp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/targets/mcp"
)

func toolWith(name string, props ...string) mcp.Tool {
	schema := map[string]any{"type": "object", "properties": map[string]any{}}
	for _, p := range props {
		schema["properties"].(map[string]any)[p] = map[string]any{"type": "string"}
	}
	b, _ := json.Marshal(schema)
	return mcp.Tool{Name: name, Schema: b}
}

// The key argument of each tool: the one the file names, else one named
// like a key (client_token among them); a named key the schema lacks,
// or a tool the server does not offer, is an error at the file's line.
func TestKeyArguments(t *testing.T) {
	load := func(body string) (mcp.File, string) {
		p := filepath.Join(t.TempDir(), "server.yaml")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := mcp.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		return f, p
	}
	tools := []mcp.Tool{toolWith("pay", "amount", "ref"), toolWith("charge", "amount", "client_token"), toolWith("list")}
	f, _ := load("mcp: {command: x}\ntools:\n  pay: {key: ref}\n")
	got, err := f.KeyArguments(tools)
	if err != nil || len(got) != 2 || got["pay"] != "ref" || got["charge"] != "client_token" {
		t.Errorf("KeyArguments = %v, %v; want pay:ref, charge:client_token", got, err)
	}
	f, p := load("mcp: {command: x}\ntools:\n  pay:\n    key: reference\n")
	if _, err := f.KeyArguments(tools); err == nil || !strings.Contains(err.Error(), p+":4: tools.pay.key: \"reference\" is not a property of the tool's input schema (it has: amount, ref)") {
		t.Errorf("a key the schema lacks: %v", err)
	}
	f, p = load("mcp: {command: x}\ntools:\n  refund: {key: ref}\n")
	if _, err := f.KeyArguments(tools); err == nil || !strings.Contains(err.Error(), p+":3: tools.refund.key: the server offers no tool \"refund\"") {
		t.Errorf("a tool the server lacks: %v", err)
	}
}
