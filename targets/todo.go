package targets

import (
	"regexp"
	"strings"
)

// todoLine is a "# TODO: ..." comment, as `idemspec init --openapi`
// writes one for each thing a document leaves open. fieldTODO is one at
// the end of a field left empty (`oracle: # TODO: ...`): it concerns
// that field, and stops warning once the field has a value.
var (
	todoLine  = regexp.MustCompile(`^\s*#\s*TODO\b:?\s*(.*)$`)
	fieldTODO = regexp.MustCompile(`^(\s*(?:-\s+)?)[A-Za-z_][A-Za-z0-9_]*:\s+#\s*TODO\b:?\s*(.*)$`)
)

// todos lists the file's TODO comments, so that validate and run name
// what a drafted file still leaves to its author.
func todos(name string, data []byte) []Finding {
	var out []Finding
	lines := strings.Split(string(data), "\n")
	for i, line := range lines {
		if !strings.Contains(line, "TODO") {
			continue
		}
		m := todoLine.FindStringSubmatch(line)
		if f := fieldTODO.FindStringSubmatch(line); f != nil && !filledBelow(lines[i+1:], len(f[1])) {
			m = []string{line, f[2]}
		}
		if m == nil {
			continue
		}
		if len(out) == maxWarnings {
			out = append(out, Finding{File: name, Line: i + 1, Kind: Warning, Message: "more TODO lines follow"})
			break
		}
		out = append(out, Finding{File: name, Line: i + 1, Kind: ToDo, Message: m[1]})
	}
	return out
}

// filledBelow says whether a field whose line is indented by indent
// has a value on the lines after it: the next line that is neither
// blank nor a comment is indented deeper.
func filledBelow(after []string, indent int) bool {
	for _, l := range after {
		t := strings.TrimLeft(l, " ")
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		return len(l)-len(t) > indent
	}
	return false
}

// pathParameter is an OpenAPI path parameter ({order_id}) left in a
// rendered path: no server has a resource of that name.
var pathParameter = regexp.MustCompile(`\{[A-Za-z_][A-Za-z0-9_.-]*\}`)
