package targets_test

import (
	"strings"
	"testing"

	"github.com/idemspec/idemspec/targets"
)

// cleanup.timeout is capped like every wait: a 10h timeout would let a
// stuck cleanup command hold the run for ten hours.
func TestCleanupTimeoutIsCapped(t *testing.T) {
	for _, c := range []struct{ timeout, want string }{
		{"10h", "t.yaml:4: cleanup.timeout: 10h0m0s is longer than 1m0s, the most idemspec waits for anything"},
		{"61s", "t.yaml:4: cleanup.timeout: 1m1s is longer than 1m0s"},
		{"-1s", `t.yaml:4: cleanup.timeout: "-1s" is not a positive duration`},
		{"soon", `t.yaml:4: cleanup.timeout: "soon" is not a positive duration`},
	} {
		_, err := targets.Parse("t.yaml", targetFile("http://127.0.0.1:1", "/r?m={{.Marker}}", "cleanup: {command: ./clean.sh, timeout: "+c.timeout+"}\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("timeout %s: %v, want %q", c.timeout, err, c.want)
		}
	}
	tg, err := targets.Parse("t.yaml", targetFile("http://127.0.0.1:1", "/r?m={{.Marker}}", "cleanup: {command: ./clean.sh, timeout: 1m}\n"))
	if err != nil || tg.Cleanup.Timeout != targets.MaxWait {
		t.Errorf("the cap itself: %v", err)
	}
}
