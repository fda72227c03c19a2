package mcp

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Oracle is the read-only tool call that shows the server's state: the
// audit counts a trial's marker in its answer.
type Oracle struct {
	Tool string         `yaml:"tool"`
	Args map[string]any `yaml:"args"`
}

// ToolSettings is what the target file says of one tool.
type ToolSettings struct {
	// Args is a Go template of the arguments, a JSON object, with
	// {{.Marker}} (unique to a trial, so the oracle can count its effects)
	// and {{.Key}} (a fresh idempotency key); "" generates them from the
	// input schema.
	Args string `yaml:"args"`
	// Key names the input property that carries an idempotency key
	// ("": one named like idempotency_key or request_id, if any).
	Key string `yaml:"key"`
	// Skip leaves the tool out of every call, with this reason (a tool
	// that sends mail, say); it is still in the per-tool table.
	Skip string `yaml:"skip"`
}

// KeyArguments maps each of the server's tools to the property that
// carries its idempotency key: the one the file names (tools.NAME.key),
// else one named like a key; a tool without one is absent. A key the
// file names that the tool's schema lacks, or a tool the server does
// not offer, is an error placed in the file.
func (f File) KeyArguments(tools []Tool) (map[string]string, error) {
	out := map[string]string{}
	offered := map[string]bool{}
	for _, t := range tools {
		offered[t.Name] = true
		named := f.Tools[t.Name].Key
		prop := t.KeyProperty(named)
		if named != "" && prop == "" {
			var props []string
			for _, p := range t.Properties() {
				props = append(props, p.Name)
			}
			return nil, f.KeyError(t.Name, fmt.Sprintf("%q is not a property of the tool's input schema (it has: %s)", named, strings.Join(props, ", ")))
		}
		if prop != "" {
			out[t.Name] = prop
		}
	}
	for _, name := range slices.Sorted(maps.Keys(f.Tools)) {
		if f.Tools[name].Key != "" && !offered[name] {
			return nil, f.KeyError(name, "the server offers no tool "+strconv.Quote(name))
		}
	}
	return out, nil
}
