package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/idemspec/idemspec/internal/fakename"
	"github.com/idemspec/idemspec/targets"
)

// errLoadAbandoned says loading the target file was given up: idemspec
// read nothing it could report on, so it writes no report.
type errLoadAbandoned struct{ cause string }

func (e errLoadAbandoned) Error() string { return e.cause }

// loadTarget loads the target, giving up when ctx ends (the first
// SIGINT or SIGTERM) or the run's timeout passes. Loading is bounded by
// itself (a file is at most 16 MiB and its templates hold no loops),
// but a --target that is a pipe nobody writes to, or a file on a mount
// that stopped answering, is not.
func loadTarget(ctx context.Context, name string, timeout time.Duration) (*targets.Target, error) {
	done := make(chan loaded, 1)
	go func() {
		t, err := fakename.Load(name)
		done <- loaded{t, toMCP(err)}
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case l := <-done:
		return l.t, l.err
	case <-ctx.Done():
		go closeLate(done)
		// The lifecycle's ctx carries --timeout too: it and the timer
		// below end together, and its cause says which it was.
		if errors.As(context.Cause(ctx), new(errTimeLimit)) {
			return nil, errLoadAbandoned{fmt.Sprintf("loading %s took longer than --timeout %s: nothing was sent", name, timeout)}
		}
		return nil, errLoadAbandoned{fmt.Sprintf("interrupted while loading %s: nothing was sent", name)}
	case <-timer.C:
		go closeLate(done)
		return nil, errLoadAbandoned{fmt.Sprintf("loading %s took longer than --timeout %s: nothing was sent", name, timeout)}
	}
}

type loaded struct {
	t   *targets.Target
	err error
}

// closeLate closes a target that loaded after it was given up.
func closeLate(done <-chan loaded) {
	if l := <-done; l.t != nil {
		l.t.Close()
	}
}
