package targets

import (
	"regexp"
	"strings"
)

// todoLine is a "# TODO: ..." comment, as `idemspec init --openapi`
// writes one for each thing a document leaves open.
var todoLine = regexp.MustCompile(`^\s*#\s*TODO\b:?\s*(.*)$`)

// todos lists the file's TODO comments, so that validate and run name
// what a drafted file still leaves to its author.
func todos(name string, data []byte) []Finding {
	var out []Finding
	for i, line := range strings.Split(string(data), "\n") {
		if !strings.Contains(line, "TODO") {
			continue
		}
		if m := todoLine.FindStringSubmatch(line); m != nil {
			if len(out) == maxWarnings {
				out = append(out, Finding{File: name, Line: i + 1, Kind: Warning, Message: "more TODO lines follow"})
				break
			}
			out = append(out, Finding{File: name, Line: i + 1, Kind: ToDo, Message: m[1]})
		}
	}
	return out
}

// pathParameter is an OpenAPI path parameter ({order_id}) left in a
// rendered path: no server has a resource of that name.
var pathParameter = regexp.MustCompile(`\{[A-Za-z_][A-Za-z0-9_.-]*\}`)
