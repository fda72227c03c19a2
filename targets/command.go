package targets

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/idemspec/idemspec/internal/proc"
)

// Every command a target file names (oracle.command, cleanup.command,
// restart.command) runs through shell: sh -c in its own process group,
// bounded by its timeout, then SIGTERM to the group and everything it
// started, proc.DefaultGrace later SIGKILL, and always waited for.

// DefaultCommandTimeout bounds one run of oracle.command when the file
// gives no timeout.
const DefaultCommandTimeout = 10 * time.Second

// commandOutputLimit caps what is kept of a command's output.
const commandOutputLimit = 1 << 20

// shellRun is one run of a command line from the target file.
type shellRun struct {
	field   string // the field the command came from, for errors
	script  string
	args    []string // $0, $1, ... after the script
	env     []string // added to idemspec's environment
	timeout time.Duration
	// keep leaves what the command started running after a normal exit
	// (a restart hook that starts the target).
	keep bool
}

// shellOutput is what a command printed.
type shellOutput struct {
	Stdout, Stderr string
}

// shell runs r and returns its output. An error names the field, says
// when the command overran its timeout, and quotes the last line it
// printed, with the target's secrets redacted.
func (t *Target) shell(ctx context.Context, r shellRun) (shellOutput, error) {
	bound := r.timeout
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < bound {
		bound = time.Until(deadline).Round(time.Millisecond)
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	cmd := exec.Command("sh", append([]string{"-c", r.script}, r.args...)...)
	cmd.Env = append(os.Environ(), r.env...)
	stdout, stderr := &proc.Buffer{Limit: commandOutputLimit}, &proc.Buffer{Limit: commandOutputLimit}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	var err error
	if r.keep {
		err = proc.RunKeep(ctx, cmd, proc.DefaultGrace)
	} else {
		err = proc.Run(ctx, cmd, proc.DefaultGrace)
	}
	out := shellOutput{Stdout: stdout.String(), Stderr: stderr.String()}
	if err == nil {
		return out, nil
	}
	switch {
	case errors.Is(err, proc.ErrTimeout) && parent.Err() == context.Canceled:
		err = errors.New("interrupted (stopped: SIGTERM, then SIGKILL to everything it started)")
	case errors.Is(err, proc.ErrTimeout):
		err = fmt.Errorf("did not finish within %s (stopped: SIGTERM, then SIGKILL to everything it started)", bound)
	}
	said := out.Stderr
	if strings.TrimSpace(said) == "" {
		said = out.Stdout
	}
	return out, fmt.Errorf("%s: %w%s", r.field, err, lastLine(t.Redact(said)))
}
