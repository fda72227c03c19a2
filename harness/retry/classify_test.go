package retry_test

import (
	"context"
	"errors"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness/retry"
)

func TestClassify(t *testing.T) {
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	reset := &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	tests := []struct {
		name   string
		status int
		err    error
		wrote  bool
		want   retry.Class
	}{
		{"201 created", 201, nil, true, retry.Applied},
		{"200 replayed", 200, nil, true, retry.Applied},
		{"connection refused", 0, dial, false, retry.NotApplied},
		{"dial error even if reported written", 0, dial, true, retry.NotApplied},
		{"timeout before the request was written", 0, context.DeadlineExceeded, false, retry.NotApplied},
		{"timeout after the request was written", 0, context.DeadlineExceeded, true, retry.Unknown},
		{"reset after the request was written", 0, reset, true, retry.Unknown},
		{"EOF after the request was written", 0, errors.New("EOF"), true, retry.Unknown},
		{"408 request timeout", 408, nil, true, retry.NotApplied},
		{"425 too early", 425, nil, true, retry.NotApplied},
		{"429 too many requests", 429, nil, true, retry.NotApplied},
		{"409 in flight", 409, nil, true, retry.Unknown},
		{"500", 500, nil, true, retry.Unknown},
		{"502", 502, nil, true, retry.Unknown},
		{"503", 503, nil, true, retry.Unknown},
		{"400 is final", 400, nil, true, retry.Refused},
		{"401 is final", 401, nil, true, retry.Refused},
		{"404 is final", 404, nil, true, retry.Refused},
		{"422 mismatch is final", 422, nil, true, retry.Refused},
		{"303 is not a failure", 303, nil, true, retry.Unknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := retry.Classify(tt.status, tt.err, tt.wrote); got != tt.want {
				t.Errorf("Classify(%d, %v, wrote=%t) = %s, want %s", tt.status, tt.err, tt.wrote, got, tt.want)
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		value  string
		want   time.Duration
		wantOK bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{"3", 3 * time.Second, true},
		{" 7 ", 7 * time.Second, true},
		{"-1", 0, false},
		{"soon", 0, false},
		{"99999999999999999", 365 * 24 * time.Hour, true},
		{"Sun, 01 Mar 2026 12:00:05 GMT", 5 * time.Second, true},
		{"Sun, 01 Mar 2026 11:59:00 GMT", 0, true}, // in the past: retry now
	}
	for _, tt := range tests {
		got, ok := retry.RetryAfter(tt.value, now)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("RetryAfter(%q) = %v, %t; want %v, %t", tt.value, got, ok, tt.want, tt.wantOK)
		}
	}
}

// extremes draws the smallest or the largest value allowed.
type extremes struct{ top bool }

func (e extremes) Int64N(n int64) int64 {
	if e.top {
		return n - 1
	}
	return 0
}

func TestBackoffIsFullJitterUnderACappedExponential(t *testing.T) {
	p := retry.Policy{BaseBackoff: 100 * time.Millisecond, MaxBackoff: time.Second}
	ceilings := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, time.Second, time.Second}
	for n, ceiling := range ceilings {
		if got := retry.Backoff(p, n, extremes{top: true}); got != ceiling {
			t.Errorf("retry %d: longest pause %v, want %v", n, got, ceiling)
		}
		if got := retry.Backoff(p, n, extremes{}); got != 0 {
			t.Errorf("retry %d: shortest pause %v, want 0 (full jitter)", n, got)
		}
	}
	if got := retry.Backoff(p, 200, extremes{top: true}); got != time.Second {
		t.Errorf("retry 200: longest pause %v, want the cap (no overflow)", got)
	}
}
