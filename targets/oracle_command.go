package targets

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

type commandSpec struct {
	Run string `yaml:"run" required:"true"`
}

// CommandOracle runs a command that prints how many resources carry a
// marker. The marker is its first argument ($1) and IDEMSPEC_MARKER.
type CommandOracle struct {
	Run    string
	target *Target
}

func (o *CommandOracle) Kind() string { return "command" }

// Evidence says what a reading from this oracle proves.
func (o *CommandOracle) Evidence() string {
	return "as strong as the command: a count it reports (no ids, so no check can tell which resource is which)"
}

// Observe runs the command and reads the count it prints.
func (o *CommandOracle) Observe(ctx context.Context, marker string) (Observation, error) {
	cmd := exec.CommandContext(ctx, "sh", "-c", o.Run, "idemspec-oracle", marker)
	cmd.Env = append(os.Environ(), "IDEMSPEC_MARKER="+marker)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return Observation{}, fmt.Errorf("oracle command: %w: %s", err, o.target.Redact(strings.TrimSpace(stderr.String())))
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || n < 0 {
		return Observation{}, fmt.Errorf("oracle command printed %q: want a count (a non-negative integer)", o.target.Redact(strings.TrimSpace(string(out))))
	}
	return Observation{Count: n}, nil
}
