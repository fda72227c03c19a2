package scenarios_test

import (
	"testing"

	"github.com/idemspec/idemspec/scenarios"
)

// The client modes' check ranges that the CLI's help names come from
// the registry, so a new client or workflow check shows up there.
func TestSpanNamesAGroupFromTheRegistry(t *testing.T) {
	for group, want := range map[string]string{scenarios.ClientGroup: "C1-C7", scenarios.WorkflowGroup: "W1-W5", "core": "S1-S4", "nothing": ""} {
		if got := scenarios.Span(group); got != want {
			t.Errorf("Span(%q) = %q, want %q", group, got, want)
		}
	}
}
