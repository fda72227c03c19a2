package targets

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// stringMap is a YAML mapping of names to strings (headers, env), kept
// in file order and read in one pass. yaml.v3 checks a mapping's keys
// for duplicates pair by pair, so a map of many thousand entries took
// minutes to load; this reads it in linear time and still refuses a
// duplicate.
type stringMap []stringEntry

type stringEntry struct {
	Key, Value string
	Line       int
}

// UnmarshalYAML reads a mapping of scalars. Its errors are type errors,
// so that the decoding of the rest of the file goes on.
func (m *stringMap) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return typeError("line %d: expected a mapping of names to values", n.Line)
	}
	seen := make(map[string]int, len(n.Content)/2)
	out := make(stringMap, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return typeError("line %d: a name must be a plain string", k.Line)
		}
		if first, ok := seen[k.Value]; ok {
			return typeError("line %d: %q is given twice (first at line %d)", k.Line, k.Value, first)
		}
		seen[k.Value] = k.Line
		if v.Kind != yaml.ScalarNode {
			return typeError("line %d: the value of %q must be a string", v.Line, k.Value)
		}
		out = append(out, stringEntry{Key: k.Value, Value: v.Value, Line: k.Line})
	}
	*m = out
	return nil
}

// typeError is an error of one value, which yaml.v3 collects while it
// decodes the rest.
func typeError(format string, args ...any) error {
	return &yaml.TypeError{Errors: []string{fmt.Sprintf(format, args...)}}
}
