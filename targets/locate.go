package targets

import (
	"os"
	"strings"

	"go.yaml.in/yaml/v3"
)

// FieldLine finds where a field stands in the target file at path, for
// a report that points at the line a finding is about (SARIF, code
// scanning): field is a dotted path (create.path, tenants[1].headers),
// looked up first in the named operation's entry of operations: (when
// operation is not "") and then at the top level, where the fields an
// operation shares stand. It returns 0 when the file cannot be read or
// holds no such field.
func FieldLine(path, operation, field string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	d, err := parseDocument(path, data)
	if err != nil {
		return 0
	}
	if operation != "" {
		if ops := childNode(d.root, "operations"); ops != nil && ops.Kind == yaml.SequenceNode {
			for _, op := range ops.Content {
				if name := childNode(op, "name"); name != nil && name.Value == operation {
					if line := fieldLineIn(op, field); line > 0 {
						return line
					}
				}
			}
		}
	}
	return fieldLineIn(d.root, field)
}

// fieldLineIn is the line of the dotted field under n, 0 when a part of it
// is missing.
func fieldLineIn(n *yaml.Node, field string) int {
	line := 0
	for _, part := range strings.Split(field, ".") {
		name, index := fieldIndex(part)
		key, val := mappingEntry(n, name)
		if val == nil {
			return 0
		}
		line, n = key.Line, val
		if index >= 0 {
			if val.Kind != yaml.SequenceNode || index >= len(val.Content) {
				return 0
			}
			n = val.Content[index]
			line = n.Line
		}
	}
	return line
}

func childNode(n *yaml.Node, name string) *yaml.Node {
	_, v := mappingEntry(n, name)
	return v
}

func mappingEntry(n *yaml.Node, name string) (key, val *yaml.Node) {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == name {
			return n.Content[i], n.Content[i+1]
		}
	}
	return nil, nil
}
