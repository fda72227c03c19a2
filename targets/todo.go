package targets

import (
	"fmt"
	"regexp"
	"strings"
)

// todoLine is a "# TODO: ..." comment, as `idemspec init --openapi`
// writes one for each thing a document leaves open.
var todoLine = regexp.MustCompile(`^\s*#\s*TODO\b:?\s*(.*)$`)

// todos lists the file's TODO comments as warnings, so that validate
// and run name what a drafted file still leaves to its author.
func todos(name string, data []byte) []string {
	var out []string
	for i, line := range strings.Split(string(data), "\n") {
		if !strings.Contains(line, "TODO") {
			continue
		}
		if m := todoLine.FindStringSubmatch(line); m != nil {
			if len(out) == maxWarnings {
				out = append(out, fmt.Sprintf("%s: more TODO lines follow", name))
				break
			}
			out = append(out, fmt.Sprintf("%s:%d: TODO: %s", name, i+1, m[1]))
		}
	}
	return out
}

// pathParameter is an OpenAPI path parameter ({order_id}) left in a
// rendered path: no server has a resource of that name.
var pathParameter = regexp.MustCompile(`\{[A-Za-z_][A-Za-z0-9_.-]*\}`)
