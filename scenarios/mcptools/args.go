package mcptools

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/template"

	"github.com/idemspec/idemspec/targets"
	"github.com/idemspec/idemspec/targets/mcp"
)

// Values is what an argument template may use.
type Values struct{ Marker, Key string }

// arguments builds one tool's arguments for a marker and a key.
type arguments struct {
	tool mcp.Tool
	key  string
	tmpl *template.Template
}

func newArguments(tool mcp.Tool, key string, ts mcp.ToolSettings) (arguments, error) {
	a := arguments{tool: tool, key: key}
	if ts.Args != "" {
		// The target file's template language: fields only, no loops.
		t, err := targets.JSONTemplate(tool.Name, ts.Args)
		if err != nil {
			return a, fmt.Errorf("tools: %s: args: %w", tool.Name, err)
		}
		a.tmpl = t
	}
	return a, nil
}

// For renders the arguments carrying marker and key.
func (a arguments) For(v Values) (map[string]any, error) {
	if a.tmpl != nil {
		b, err := targets.Render(a.tmpl, v)
		if err != nil {
			return nil, fmt.Errorf("tools: %s: args: %w", a.tool.Name, err)
		}
		var out map[string]any
		if err := json.Unmarshal([]byte(b), &out); err != nil {
			return nil, fmt.Errorf("tools: %s: args: not a JSON object once rendered (%v): %s", a.tool.Name, err, b)
		}
		return out, nil
	}
	return a.generate(v)
}

// generate fills the input schema's simple properties: the key property
// gets the key, strings the marker (or an enum's first value), numbers 1,
// booleans true; an optional property of another type is left out, a
// required one makes the tool unauditable without a template.
func (a arguments) generate(v Values) (map[string]any, error) {
	out := map[string]any{}
	for _, p := range a.tool.Properties() {
		switch {
		case p.Name == a.key:
			out[p.Name] = v.Key
		case len(p.Enum) > 0:
			out[p.Name] = p.Enum[0]
		case p.Type == "string":
			out[p.Name] = v.Marker
		case p.Type == "integer", p.Type == "number":
			out[p.Name] = 1
		case p.Type == "boolean":
			out[p.Name] = true
		case p.Required:
			return nil, fmt.Errorf("cannot generate arguments for %s: its required property %q has type %q; give them in the target file (tools: %s: args: ...)", a.tool.Name, p.Name, p.Type, a.tool.Name)
		}
	}
	return out, nil
}

// carriesMarker says whether arguments for v put the marker anywhere
// but in the key: otherwise a changed argument cannot be made.
func (a arguments) carriesMarker(v Values) bool {
	args, err := a.For(v)
	if err != nil {
		return false
	}
	if a.key != "" {
		delete(args, a.key)
	}
	b, _ := json.Marshal(args)
	return strings.Contains(string(b), v.Marker)
}
