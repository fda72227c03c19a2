package targets

import (
	"context"
	"fmt"
	"time"
)

// Lifecycle is a target idemspec started or can restart, and must stop
// (Stop does nothing for a target it only restarts through a hook).
type Lifecycle interface {
	Stop() error
}

// Starter is a lifecycle started before the suite: a managed process.
// dir is the report directory, where the target's output is logged.
type Starter interface {
	Start(ctx context.Context, dir string) error
}

// Restarter restarts the target gracefully (requests in flight may
// finish) and returns once the target is healthy again.
type Restarter interface {
	Restart(ctx context.Context) error
}

// Crasher kills the target at once (SIGKILL, or the fakes' in-process
// equivalent: nothing in flight finishes or answers) and starts it again,
// returning once it is healthy. Only what idemspec runs can be crashed.
type Crasher interface {
	Crash(ctx context.Context) error
}

// CrashPointer is a target that can hold a request for a key inside its
// work and say so (the built-in fakes): a crash then lands exactly there.
// Others are crashed at a delay drawn from Target.CrashWindow.
type CrashPointer interface {
	CrashPoint(key string) <-chan struct{}
}

// CrashLiner is a crash pointer whose point is a line the target
// writes (process.crash_at): CrashLine is that line for key, which a
// crash that missed its point names.
type CrashLiner interface {
	CrashLine(key string) string
}

// CannotRestart says why the target cannot be restarted, or "" if it can.
func (t *Target) CannotRestart() string {
	if _, ok := t.Lifecycle.(Restarter); ok {
		return ""
	}
	return "the target cannot be restarted: idemspec does not run it and the target file declares no restart hook (add a process: or restart: section)"
}

// CannotCrash says why the target cannot be crashed, or "" if it can.
func (t *Target) CannotCrash() string {
	if _, ok := t.Lifecycle.(Crasher); ok {
		return ""
	}
	if _, ok := t.Lifecycle.(Restarter); ok {
		return "the target restarts through a hook, which cannot kill it in the middle of a request: a crash needs a process idemspec manages (process:) or a built-in fake"
	}
	return "the target cannot be crashed: idemspec does not run it (a crash needs a process: section in the target file, or a built-in fake)"
}

// Window is a range of durations a delay is drawn from.
type Window struct {
	Min, Max time.Duration
}

// DefaultCrashWindow is where a crash mid-request lands, after the
// request was delivered, when the target file does not say.
var DefaultCrashWindow = Window{Min: 10 * time.Millisecond, Max: 100 * time.Millisecond}

func (w Window) String() string {
	if w.Min == w.Max {
		return w.Min.String()
	}
	return fmt.Sprintf("%s-%s", w.Min, w.Max)
}
