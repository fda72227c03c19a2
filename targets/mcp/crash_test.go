package mcp_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/targets/mcp"
)

// TestAwaitCrashPoint: a call answered before the crash's moment (before
// or after its delivery) gives a *CrashMissed naming that moment, never
// a place "mid-call"; one still running when the moment comes gives
// where the crash lands.
func TestAwaitCrashPoint(t *testing.T) {
	closed := func() chan struct{} { c := make(chan struct{}); close(c); return c }
	ctx := context.Background()

	where, err := mcp.AwaitCrashPoint(ctx, closed(), make(chan struct{}), time.Millisecond, time.Time{})
	if err != nil || !strings.Contains(where, "1ms after the call was delivered") {
		t.Errorf("a call still running: %q, %v; want the crash 1ms after its delivery", where, err)
	}
	for name, delivered := range map[string]chan struct{}{"after its delivery": closed(), "before its delivery": make(chan struct{})} {
		_, err := mcp.AwaitCrashPoint(ctx, delivered, closed(), time.Hour, time.Time{})
		var missed *mcp.CrashMissed
		if !errors.As(err, &missed) || !strings.Contains(err.Error(), "did not land mid-call") {
			t.Errorf("a call answered %s: %v; want a *CrashMissed", name, err)
		}
	}
}
