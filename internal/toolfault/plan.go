// Package toolfault is the fault plan a side standing between an MCP
// client and a server keeps for the tool calls faults aim at: answer
// the next n with a tool error of its own, or lose the answers of the
// calls that ran. The relay in front of a real server (harness/mcprelay)
// and the reference's MCP side (fakes/mcpside) share it, so a check's
// fault means one thing over both.
//
// An injected answer must be one the server could have given: a tool
// error (isError) with its text, and structured content only where it
// fits the outputSchema the tool declares (Fits): a client that
// validates structured content against it, as the MCP TypeScript SDK
// does once it has listed the tools, would otherwise throw a protocol
// error the real server never causes.
package toolfault

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/idemspec/idemspec/harness/agent"
)

// Plan is what the side does to the calls faults aim at. Its zero value
// does nothing; it is safe for concurrent use.
type Plan struct {
	mu     sync.Mutex
	failN  int
	status int
	losing bool
}

// FailNext has the side answer the next n aimed calls itself, without
// the server: a transient tool error for a 5xx status, a final one for
// any other (client mode's 503 and 422). n = 0 clears it.
func (p *Plan) FailNext(n, status int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.failN, p.status = n, status
}

// LoseAnswers, while on, has the side lose the answer of every aimed
// call that ran: the call runs, the client never hears.
func (p *Plan) LoseAnswers(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.losing = on
}

// Inject takes one of the calls FailNext armed: the status to answer
// the aimed call with, or false when none is armed.
func (p *Plan) Inject() (status int, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.failN <= 0 {
		return 0, false
	}
	p.failN--
	return p.status, true
}

// Losing says whether answers are being lost.
func (p *Plan) Losing() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.losing
}

// Retryable says whether an injected status is a transient error (5xx):
// the call was not run and may be made again.
func Retryable(status int) bool { return status >= 500 }

// Text is an injected tool error's text: what happened, and whether the
// call may be made again.
func Text(status int) string {
	if Retryable(status) {
		return fmt.Sprintf("unavailable (as a %d): nothing was done, the call may be retried", status)
	}
	return fmt.Sprintf("refused (as a %d): final, do not retry this call", status)
}

// Structured is an injected tool error's structured content: its text,
// and whether the call may be made again, in the member idemspec's
// client contract names (docs/CLIENT-CONTRACT.md#over-mcp). A side
// sends it only where it fits the tool's declared outputSchema (Fits).
func Structured(status int) map[string]any {
	return map[string]any{"error": Text(status), agent.Retryable: Retryable(status)}
}

// Fits says whether content surely validates against a tool's declared
// outputSchema (nil: none declared, anything fits). It reads the common
// shape alone (an object's type, properties with a type, required,
// additionalProperties); a schema that says more (composition, patterns,
// references) is not read, and nothing is said to fit it: a side then
// sends its text alone, which fits every schema.
func Fits(schema any, content map[string]any) bool {
	if schema == nil {
		return true
	}
	s, ok := asObject(schema)
	if !ok || !onlyKeys(s, "type", "properties", "required", "additionalProperties", "title", "description", "$schema", "$id") {
		return false
	}
	if t, ok := s["type"]; ok && t != "object" {
		return false
	}
	props, _ := s["properties"].(map[string]any)
	for name, v := range content {
		p, declared := props[name]
		if !declared {
			if extra, ok := s["additionalProperties"]; ok && extra != true {
				return false
			}
			continue
		}
		ps, ok := p.(map[string]any)
		if !ok || !onlyKeys(ps, "type", "title", "description") {
			return false
		}
		if t, ok := ps["type"]; ok && t != jsonType(v) {
			return false
		}
	}
	req, _ := s["required"].([]any)
	for _, r := range req {
		if _, ok := content[fmt.Sprint(r)]; !ok {
			return false
		}
	}
	return true
}

// asObject reads a schema as JSON reads it (a map, whatever type the
// SDK gave it).
func asObject(schema any) (map[string]any, bool) {
	b, err := json.Marshal(schema)
	if err != nil {
		return nil, false
	}
	var m map[string]any
	return m, json.Unmarshal(b, &m) == nil && m != nil
}

func onlyKeys(m map[string]any, known ...string) bool {
	for k := range m {
		if !slices.Contains(known, k) {
			return false
		}
	}
	return true
}

// jsonType is the JSON Schema type of a value Structured makes.
func jsonType(v any) string {
	switch v.(type) {
	case bool:
		return "boolean"
	case string:
		return "string"
	}
	return ""
}
