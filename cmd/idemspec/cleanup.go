package main

import (
	"context"
	"fmt"
	"io"

	"github.com/idemspec/idemspec/harness"
)

// runCleanup runs the target's cleanup step and says what it did; it
// reports whether the cleanup failed (which makes a passing run exit 2:
// the environment was left dirty).
func runCleanup(ctx context.Context, env *harness.Env, stdout, stderr io.Writer) (failed bool) {
	t := env.Target
	if t.Cleanup == nil {
		return false
	}
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "idemspec: cleanup skipped (interrupted twice): what run %s created may remain\n", env.RunID)
		return true
	}
	res, err := env.Cleanup(ctx)
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "idemspec: cleanup stopped (interrupted twice): what run %s created may remain\n", env.RunID)
		return true
	}
	if err != nil {
		fmt.Fprintf(stderr, "idemspec: %s\n", t.Redact(err.Error()))
		return true
	}
	if t.Cleanup.Command != "" {
		fmt.Fprintf(stdout, "cleanup: the command ran for run %s (%d markers)\n", env.RunID, len(env.Markers()))
	} else {
		fmt.Fprintf(stdout, "cleanup: deleted %d resources\n", res.Deleted)
	}
	return false
}
