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
// guess of how fast the machine is. If the call is answered first, the
// error is a *CrashMissed saying what the crash waited for: a crash
// after the answer shows nothing of a crash mid-call. ctx bounds the
// wait.
func AwaitCrashPoint(ctx context.Context, delivered, answered <-chan struct{}, after time.Duration, aim time.Time) (string, error) {
	select {
	case <-delivered:
	case <-answered:
		return "", &CrashMissed{Awaited: "the call's delivery to the server"}
	case <-ctx.Done():
		return "", fmt.Errorf("the call was not delivered: %w", ctx.Err())
	}
	wait := max(after, time.Until(aim))
	awaited := fmt.Sprintf("%s after the call was delivered", wait.Round(time.Millisecond))
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return awaited, nil
	case <-answered:
		return "", &CrashMissed{Awaited: awaited}
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// CrashMissed is a crash's error when the call was answered before the
// crash's moment came: the server was killed after the answer, which is
// no evidence of what a crash mid-call does.
type CrashMissed struct {
	// Awaited is the moment the crash waited for.
	Awaited string
	// Hint says what would make the crash land mid-call ("": none).
	Hint string
	// Took is how long after it was sent the call was answered (0:
	// unknown): a crash aimed again aims inside that.
	Took time.Duration
}

func (m *CrashMissed) Error() string {
	s := fmt.Sprintf("the crash did not land mid-call: the call was answered before the crash's moment (%s); a crash after the answer shows nothing of a crash mid-call", m.Awaited)
	if m.Hint != "" {
		s += " (" + m.Hint + ")"
	}
	return s
}
