package mcp

import (
	"encoding/json"
	"regexp"
	"slices"
	"sort"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool is one tool as tools/list declares it, with the annotation
// defaults of the specification applied.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Annotated: the server sent annotations (else every hint is its
	// default: not read-only, not idempotent, destructive, open world).
	Annotated   bool `json:"annotated"`
	ReadOnly    bool `json:"readOnlyHint"`
	Idempotent  bool `json:"idempotentHint"`
	Destructive bool `json:"destructiveHint"`
	OpenWorld   bool `json:"openWorldHint"`
	// Schema is the input schema as sent.
	Schema json.RawMessage `json:"inputSchema,omitempty"`
	// Declared is the tool as the server sent it, for a relay that
	// offers the same tool to its own clients.
	Declared *sdk.Tool `json:"-"`
}

// Property is one property of an input schema, as far as the audit
// reads it.
type Property struct {
	Name     string `json:"name"`
	Type     string `json:"type,omitempty"`
	Enum     []any  `json:"enum,omitempty"`
	Required bool   `json:"required,omitempty"`
}

func toolOf(t *sdk.Tool) Tool {
	out := Tool{Name: t.Name, Description: t.Description, Destructive: true, OpenWorld: true, Declared: t}
	if a := t.Annotations; a != nil {
		out.Annotated = true
		out.ReadOnly, out.Idempotent = a.ReadOnlyHint, a.IdempotentHint
		if a.DestructiveHint != nil {
			out.Destructive = *a.DestructiveHint
		}
		if a.OpenWorldHint != nil {
			out.OpenWorld = *a.OpenWorldHint
		}
	}
	if t.InputSchema != nil {
		out.Schema, _ = json.Marshal(t.InputSchema)
	}
	return out
}

// Properties lists the top-level properties of the input schema, by
// name; a schema the audit cannot read has none.
func (t Tool) Properties() []Property {
	var s struct {
		Properties map[string]struct {
			Type any   `json:"type"`
			Enum []any `json:"enum"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal(t.Schema, &s) != nil {
		return nil
	}
	var out []Property
	for name, p := range s.Properties {
		typ, _ := p.Type.(string)
		if types, ok := p.Type.([]any); ok && len(types) > 0 {
			typ, _ = types[0].(string) // ["string","null"]: the first
		}
		out = append(out, Property{Name: name, Type: typ, Enum: p.Enum, Required: slices.Contains(s.Required, name)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// keyName is how a property that carries an idempotency key is usually
// named (idempotency_key, idempotencyKey, request_id, requestId, ...).
var keyName = regexp.MustCompile(`(?i)^(idempotency[_-]?key|request[_-]?id|client[_-]?request[_-]?id|client[_-]?token|dedup(e|lication)?[_-]?(key|id))$`)

// KeyProperty is the input property that carries an idempotency key:
// the one named, if the schema has it, else one named like a key; ""
// when there is none.
func (t Tool) KeyProperty(named string) string {
	props := t.Properties()
	for _, p := range props {
		if named != "" && p.Name == named {
			return p.Name
		}
	}
	if named != "" {
		return ""
	}
	for _, p := range props {
		if keyName.MatchString(p.Name) {
			return p.Name
		}
	}
	return ""
}

// Claim is the tool's annotations in a few words, as the plan and the
// per-tool table show them.
func (t Tool) Claim() string {
	var parts []string
	switch {
	case !t.Annotated:
		parts = append(parts, "no annotations")
	case t.ReadOnly:
		parts = append(parts, "readOnly")
	case t.Idempotent:
		parts = append(parts, "idempotent")
	default:
		parts = append(parts, "not idempotent")
	}
	if !t.ReadOnly {
		if t.Destructive {
			parts = append(parts, "destructive")
		} else {
			parts = append(parts, "not destructive")
		}
	}
	out := parts[0]
	for _, p := range parts[1:] {
		out += ", " + p
	}
	return out
}
