package retry_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness/retry"
	"github.com/idemspec/idemspec/harness/retry/state"
)

// fixedScript plays a written sequence of outcomes; a request beyond
// the script fails the test.
type fixedScript struct {
	t       *testing.T
	creates []string
	lookups []string
	wait    string // the Retry-After value of every answer that has one
}

func (s fixedScript) create(n int) string {
	if n > len(s.creates) {
		s.t.Fatalf("the client sent create %d; the script has %d", n, len(s.creates))
	}
	return s.creates[n-1]
}

func (s fixedScript) lookup(n int) string {
	if n > len(s.lookups) {
		s.t.Fatalf("the client made look-up %d; the script has %d", n, len(s.lookups))
	}
	return s.lookups[n-1]
}

func (s fixedScript) latency(string, time.Duration) time.Duration { return 5 * time.Millisecond }
func (s fixedScript) retryAfter(string) string                    { return s.wait }
func (s fixedScript) fatalf(format string, args ...any)           { s.t.Fatalf(format, args...) }

func testPolicy() retry.Policy {
	return retry.Policy{MaxAttempts: 3, AttemptTimeout: time.Second, Deadline: 30 * time.Second, BaseBackoff: 10 * time.Millisecond, MaxBackoff: 100 * time.Millisecond}
}

func TestStateMachine(t *testing.T) {
	tests := []struct {
		name       string
		creates    []string
		lookups    []string
		retryAfter string
		noLookup   bool
		policy     func(*retry.Policy)
		// journaled, when set, is the state an earlier process left;
		// applied says whether the server ran its attempt.
		journaled state.State
		applied   bool

		want     state.State
		sent     int
		lookedUp int
		reason   string
	}{
		{name: "created at once", creates: []string{"201"}, want: state.Succeeded, sent: 1, reason: "created"},
		{name: "422 is final", creates: []string{"422"}, want: state.FailedFinal, sent: 1, reason: "refused (422)"},
		{name: "400 is final", creates: []string{"400"}, want: state.FailedFinal, sent: 1, reason: "refused (400)"},
		{name: "refused connection needs no reconciliation", creates: []string{"refused-connection", "201"}, want: state.Succeeded, sent: 2},
		{name: "lost answer: reconciliation finds the resource", creates: []string{"lost"}, lookups: []string{"truth"}, want: state.Succeeded, sent: 1, lookedUp: 1, reason: "reconciled"},
		{name: "blackhole: not found, resubmitted with the same key", creates: []string{"blackhole", "201"}, lookups: []string{"truth"}, want: state.Succeeded, sent: 2, lookedUp: 1},
		{name: "persistent blackhole ends unknown at the budget", creates: []string{"blackhole", "blackhole", "blackhole"}, lookups: []string{"truth", "truth", "truth"}, want: state.UnknownResult, sent: 3, lookedUp: 3, reason: "attempt budget (3) spent"},
		{name: "a last look-up after the budget finds the last attempt's commit", creates: []string{"blackhole", "blackhole", "lost"}, lookups: []string{"truth", "truth", "truth"}, want: state.Succeeded, sent: 3, lookedUp: 3, reason: "reconciled"},
		{name: "persistent blackhole without a reconciler", noLookup: true, creates: []string{"blackhole", "blackhole", "blackhole"}, want: state.UnknownResult, sent: 3, reason: "attempt budget (3) spent"},
		{name: "look-ups that cannot tell never license a resubmission", creates: []string{"lost"}, lookups: []string{"timeout", "500", "in-progress"}, want: state.UnknownResult, sent: 1, lookedUp: 3, reason: "look-up budget (3) spent"},
		{name: "a refusal after an unknown outcome is not a failure", noLookup: true, creates: []string{"blackhole", "400"}, want: state.UnknownResult, sent: 2, reason: "refused (400) after an attempt that may have applied"},
		{name: "429 waits and retries without reconciling", creates: []string{"429 retry-after", "201"}, retryAfter: "1", want: state.Succeeded, sent: 2},
		{name: "409 in flight: wait for the first attempt", creates: []string{"409 retry-after", "201"}, retryAfter: "1", lookups: []string{"in-progress", "truth"}, want: state.Succeeded, sent: 2, lookedUp: 2},
		{name: "500 is unknown: reconcile first", creates: []string{"500", "201"}, lookups: []string{"truth"}, want: state.Succeeded, sent: 2, lookedUp: 1},
		{name: "500 after applying: reconciliation finds it", creates: []string{"500+applied"}, lookups: []string{"truth"}, want: state.Succeeded, sent: 1, lookedUp: 1},
		{name: "Retry-After past the deadline stops at once", creates: []string{"429 retry-after"}, retryAfter: "60", want: state.FailedRetryable, sent: 1, reason: "Retry-After (1m0s) reaches past the deadline"},
		{name: "refused connections until the budget", creates: []string{"refused-connection", "refused-connection", "refused-connection"}, want: state.FailedRetryable, sent: 3, reason: "attempt budget (3) spent"},
		{
			name: "the deadline cuts the last attempt", creates: []string{"blackhole", "blackhole"}, lookups: []string{"truth"},
			policy: func(p *retry.Policy) { p.Deadline = 1500 * time.Millisecond },
			want:   state.UnknownResult, sent: 2, lookedUp: 1, reason: "deadline reached",
		},
		{name: "resumed after a crash mid-send: reconciled, not resent", journaled: state.Submitting, applied: true, lookups: []string{"truth"}, want: state.Succeeded, lookedUp: 1},
		{name: "resumed after a crash mid-send that never landed", journaled: state.Submitting, lookups: []string{"truth"}, creates: []string{"201"}, want: state.Succeeded, sent: 1, lookedUp: 1},
		{name: "resumed unknown without a reconciler: same-key resubmission", journaled: state.UnknownResult, applied: true, noLookup: true, creates: []string{"201"}, want: state.Succeeded, sent: 1},
		{name: "resumed after a retryable failure: no reconciliation needed", journaled: state.FailedRetryable, creates: []string{"201"}, want: state.Succeeded, sent: 1},
		{name: "already succeeded: nothing sent", journaled: state.Succeeded, applied: true, want: state.Succeeded, reason: "already SUCCEEDED"},
		{name: "already refused: nothing sent", journaled: state.FailedFinal, want: state.FailedFinal, reason: "already FAILED_FINAL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			clock := newSimClock()
			j := retry.NewMemoryJournal()
			v := newSimServer(fixedScript{t: t, creates: tt.creates, lookups: tt.lookups, wait: tt.retryAfter}, clock, j, "op")
			p := testPolicy()
			if tt.policy != nil {
				tt.policy(&p)
			}
			c := simClient(v, p, !tt.noLookup, extremes{top: true})
			op, err := c.Begin(ctx, "op", []byte(`{"marker":"m"}`))
			if err != nil {
				t.Fatal(err)
			}
			if tt.journaled != "" {
				op.State, op.Attempts = tt.journaled, 1
				if tt.applied {
					v.apply(op.Key)
					if tt.journaled == state.Succeeded {
						op.ResourceID = v.resources[op.Key]
					}
				}
				if err := j.Update(ctx, op); err != nil {
					t.Fatal(err)
				}
			}
			started := clock.Now()
			res, err := c.Run(ctx, "op")
			if err != nil {
				t.Fatal(err)
			}
			if res.State != tt.want || res.Sent != tt.sent || res.Lookups != tt.lookedUp {
				t.Fatalf("ended %s after %d creates and %d look-ups (%s); want %s, %d, %d", res.State, res.Sent, res.Lookups, res.Reason, tt.want, tt.sent, tt.lookedUp)
			}
			if !strings.Contains(res.Reason, tt.reason) {
				t.Errorf("reason %q, want it to contain %q", res.Reason, tt.reason)
			}
			if len(v.wire) != tt.sent+tt.lookedUp {
				t.Errorf("the network saw %d requests; the result counts %d", len(v.wire), tt.sent+tt.lookedUp)
			}
			for _, ev := range v.wire {
				if ev.Create && ev.Key != op.Key {
					t.Errorf("an attempt carried key %q, not the operation's %q", ev.Key, op.Key)
				}
			}
			if tt.want == state.Succeeded && res.ResourceID != v.resources[op.Key] {
				t.Errorf("resource %q, the server holds %q", res.ResourceID, v.resources[op.Key])
			}
			if took := clock.Now().Sub(started); took > p.Deadline {
				t.Errorf("took %v, deadline %v", took, p.Deadline)
			}
			stored, _ := j.Load(ctx, "op")
			if stored.State != res.State || stored.Attempts != op.Attempts+res.Sent {
				t.Errorf("journal says %s with %d attempts; the run ended %s after %d+%d", stored.State, stored.Attempts, res.State, op.Attempts, res.Sent)
			}
		})
	}
}

func TestRetryAfterIsHonoured(t *testing.T) {
	clock := newSimClock()
	j := retry.NewMemoryJournal()
	v := newSimServer(fixedScript{t: t, creates: []string{"429 retry-after", "201"}, wait: "2"}, clock, j, "op")
	c := simClient(v, testPolicy(), true, extremes{})
	res, err := c.Submit(context.Background(), "op", []byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	var paused time.Duration
	for _, ev := range res.Events {
		paused += ev.Pause
	}
	if res.State != state.Succeeded || paused != 2*time.Second {
		t.Fatalf("ended %s after pausing %v; want SUCCEEDED after exactly the 2s the server asked for", res.State, paused)
	}
}

func TestBeginKeepsTheFirstKeyAndPayload(t *testing.T) {
	ctx := context.Background()
	c := retry.Client{Journal: retry.NewMemoryJournal()}
	first, err := c.Begin(ctx, "op", []byte("a"))
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.Begin(ctx, "op", []byte("a"))
	if err != nil {
		t.Fatal(err)
	}
	if again.Key != first.Key || first.State != state.Pending {
		t.Fatalf("begun twice: keys %q and %q, state %s", first.Key, again.Key, first.State)
	}
	if _, err := c.Begin(ctx, "op", []byte("b")); err == nil || !strings.Contains(err.Error(), "another payload") {
		t.Fatalf("another payload under the same operation: %v", err)
	}
	if _, err := c.Begin(ctx, "", []byte("a")); err == nil {
		t.Fatal("an operation without an id was accepted")
	}
}

func TestRunRejectsABadPolicy(t *testing.T) {
	c := retry.Client{Journal: retry.NewMemoryJournal(), Policy: retry.Policy{MaxAttempts: -1}}
	if _, err := c.Run(context.Background(), "op"); err == nil || !strings.Contains(err.Error(), "negative") {
		t.Fatalf("a negative budget: %v", err)
	}
}
