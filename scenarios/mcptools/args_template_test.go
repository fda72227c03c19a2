package mcptools

import (
	"strings"
	"testing"

	"github.com/idemspec/idemspec/targets/mcp"
)

// A tool's args are the target file's template language: a loop is
// refused at once (run, it would spin the audit), and a field renders.
func TestToolArgsAreFieldsOnly(t *testing.T) {
	tool := mcp.Tool{Name: "create_note"}
	if _, err := newArguments(tool, "key", mcp.ToolSettings{Args: `{"title":"{{.Marker}}"}{{range 100000000000}}{{end}}`}); err == nil || !strings.Contains(err.Error(), "tools: create_note: args: {{range 100000000000}}{{end}} is not part of a target file's templates") {
		t.Errorf("a loop: %v", err)
	}
	a, err := newArguments(tool, "key", mcp.ToolSettings{Args: `{"title":"{{.Marker}}","key":"{{.Key}}"}`})
	if err != nil {
		t.Fatal(err)
	}
	got, err := a.For(Values{Marker: `m"1`, Key: "k"})
	if err != nil || got["title"] != `m"1` || got["key"] != "k" {
		t.Errorf("rendered %v, %v", got, err)
	}
}
