package mcp

import (
	"context"
	"fmt"
	"time"
)

// AwaitCrashPoint waits for the moment to crash a server under a call:
// once the call's request was delivered (the bytes handed to the
// server), after more, and not before aim (zero: no aim), a moment
// counted from when the call was sent. It waits on conditions, not on a
// guess of how fast the machine is: if the call is answered first, the
// crash comes after it, and the description says so. ctx bounds the
// wait.
func AwaitCrashPoint(ctx context.Context, delivered, answered <-chan struct{}, after time.Duration, aim time.Time) (string, error) {
	const late = "after the call was answered: the crash came too late to land mid-call"
	select {
	case <-delivered:
	case <-answered:
		return late, nil
	case <-ctx.Done():
		return "", fmt.Errorf("the call was not delivered: %w", ctx.Err())
	}
	wait := max(after, time.Until(aim))
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return fmt.Sprintf("%s after the call was delivered", wait.Round(time.Millisecond)), nil
	case <-answered:
		return late, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}
