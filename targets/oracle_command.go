package targets

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

type commandSpec struct {
	Run     string `yaml:"run" required:"true"`
	Timeout string `yaml:"timeout"`
}

// CommandOracle runs a command that prints how many resources carry a
// marker. The marker is its first argument ($1) and IDEMSPEC_MARKER.
type CommandOracle struct {
	Run string
	// Timeout bounds one run (DefaultCommandTimeout unless the file
	// says); the caller's context may bound it sooner.
	Timeout time.Duration
	target  *Target
}

func (o *CommandOracle) Kind() string { return "command" }

// Evidence says what a reading from this oracle proves.
func (o *CommandOracle) Evidence() string {
	return "as strong as the command: a count it reports (no ids, so no check can tell which resource is which)"
}

// Observe runs the command and reads the count it prints.
func (o *CommandOracle) Observe(ctx context.Context, marker string) (Observation, error) {
	out, err := o.target.shell(ctx, shellRun{
		field: "oracle.command", script: o.Run, args: []string{"idemspec-oracle", marker},
		env: []string{"IDEMSPEC_MARKER=" + marker}, timeout: o.Timeout,
	})
	if err != nil {
		return Observation{}, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(out.Stdout))
	if err != nil || n < 0 {
		return Observation{}, fmt.Errorf("oracle command printed %q: want a count (a non-negative integer)", o.target.Redact(strings.TrimSpace(out.Stdout)))
	}
	return Observation{Count: n}, nil
}
