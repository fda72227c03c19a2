package scenarios

import (
	"strings"
	"testing"

	"github.com/idemspec/idemspec/harness/check"
)

// The note of a run started again says how the run before it ended: a
// kill is no end of the run's own.
func TestStartedAgainSaysHowTheRunBeforeEnded(t *testing.T) {
	killed := startedAgain(1, check.ClientExit{Killed: "SIGKILL to its process group inside step link"})
	if !strings.Contains(killed, "after run 1 was killed: SIGKILL") || strings.Contains(killed, "end") {
		t.Errorf("after a kill: %q", killed)
	}
	ended := startedAgain(2, check.ClientExit{State: "SUCCEEDED"})
	if !strings.Contains(ended, "after run 2 ended: SUCCEEDED") {
		t.Errorf("after an end: %q", ended)
	}
}
