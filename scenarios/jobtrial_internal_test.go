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

// A killed run that sent its held step again, or looked a key up, after
// the held request had stopped waiting for it before the kill came: the
// kill landed late. Another step's request does not say so.
func TestMovedOnAfterTheHeldRequest(t *testing.T) {
	cases := []struct {
		name string
		rs   []JobRequest
		want bool
	}{
		{"nothing after it", nil, false},
		{"the step sent again", []JobRequest{{Kind: "send", Step: "link", Key: "kl"}}, true},
		{"a look-up", []JobRequest{{Kind: "lookup", Key: "kl"}}, true},
		{"another step", []JobRequest{{Kind: "send", Step: "upload"}}, false},
	}
	for _, c := range cases {
		if got := movedOn(c.rs, "link"); got != c.want {
			t.Errorf("%s: movedOn = %v, want %v", c.name, got, c.want)
		}
	}
}
