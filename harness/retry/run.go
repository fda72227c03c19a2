package retry

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
	"time"

	"github.com/idemspec/idemspec/harness/retry/state"
)

// maxAnswer bounds how much of an answer the client reads.
const maxAnswer = 1 << 20

// runner is one run of one operation.
type runner struct {
	c     *Client
	p     Policy
	clock Clock
	rnd   Random
	op    Operation
	res   Result

	// maybe: some attempt may have applied. It never goes back to false:
	// a look-up that finds nothing licenses a same-key resubmission, but
	// not a failure, because the earlier attempt may still land.
	maybe bool
	// unsure: the latest news is an unknown outcome, so the next step is
	// a reconciliation, not a send.
	unsure bool
	pauses int
}

func (r *runner) run(ctx context.Context) (Result, error) {
	now := r.clock.Now()
	r.res = Result{Budget: r.p.MaxAttempts, Started: now, Deadline: now.Add(r.p.Deadline)}
	if r.op.State.Done() {
		return r.end(ctx, r.op.State, "already "+string(r.op.State), nil)
	}
	r.maybe = mayHaveApplied(r.op.State)
	r.unsure = r.maybe
	for {
		if err := ctx.Err(); err != nil {
			return r.end(ctx, r.open(), "cancelled", err)
		}
		if r.remaining() <= 0 {
			return r.end(ctx, r.open(), "deadline reached", nil)
		}
		if r.unsure && r.c.Reconciler != nil && r.c.bug != bugBlindResubmit {
			if r.res.Lookups >= r.p.MaxLookups {
				return r.end(ctx, r.open(), fmt.Sprintf("look-up budget (%d) spent without learning the outcome", r.p.MaxLookups), nil)
			}
			f, err := r.reconcile(ctx)
			switch {
			case ctx.Err() != nil:
				return r.end(ctx, r.open(), "cancelled", ctx.Err())
			case err == nil && f.Fate == Found:
				r.op.ResourceID = f.ResourceID
				return r.end(ctx, state.Succeeded, "reconciled: the resource exists", nil)
			case err == nil && f.Fate == NotFound:
				r.unsure = false // resubmit now, with the same key
			default:
				if reason, ok := r.pause(ctx, 0); !ok {
					return r.end(ctx, r.open(), reason, ctx.Err())
				}
				continue
			}
		}
		if r.remaining() <= 0 {
			// The look-up took what was left: an attempt with no time
			// could only add doubt.
			return r.end(ctx, r.open(), "deadline reached", nil)
		}
		if r.res.Sent >= r.p.MaxAttempts && r.c.bug != bugUnbounded {
			return r.end(ctx, r.open(), fmt.Sprintf("attempt budget (%d) spent", r.p.MaxAttempts), nil)
		}
		class, retryAfter, err := r.send(ctx)
		if err != nil {
			return r.end(ctx, r.open(), "stopped before sending: "+err.Error(), err)
		}
		switch class {
		case Applied:
			return r.end(ctx, state.Succeeded, "created", nil)
		case Refused:
			if r.maybe {
				return r.end(ctx, state.UnknownResult, fmt.Sprintf("refused (%d) after an attempt that may have applied", r.res.Status), nil)
			}
			return r.end(ctx, state.FailedFinal, fmt.Sprintf("refused (%d)", r.res.Status), nil)
		case Unknown:
			r.maybe, r.unsure = true, true
		}
		if err := r.save(ctx, r.open()); err != nil {
			return r.end(ctx, r.open(), "the journal failed: "+err.Error(), err)
		}
		if ctx.Err() != nil {
			return r.end(ctx, r.open(), "cancelled", ctx.Err())
		}
		if reason, ok := r.pause(ctx, retryAfter); !ok {
			return r.end(ctx, r.open(), reason, ctx.Err())
		}
	}
}

// open is the state of an operation this run leaves unfinished.
func (r *runner) open() state.State {
	if r.maybe {
		return state.UnknownResult
	}
	return state.FailedRetryable
}

// mayHaveApplied reports a journaled state in which some attempt may
// already have applied: the client must reconcile before it resubmits,
// and may never report FailedFinal or FailedRetryable for the operation.
func mayHaveApplied(s state.State) bool {
	return s == state.Submitting || s == state.UnknownResult
}

func (r *runner) remaining() time.Duration {
	return r.res.Deadline.Sub(r.clock.Now())
}

// timeout bounds one request: the attempt timeout, cut at the deadline.
func (r *runner) timeout() time.Duration {
	if r.c.bug == bugNoDeadline {
		return r.p.AttemptTimeout
	}
	return min(r.p.AttemptTimeout, r.remaining())
}

// send makes one create attempt. The journal says SUBMITTING, with the
// attempt counted, before a byte leaves: a process that dies mid-send
// restarts knowing the attempt may have applied. An error means nothing
// was sent (the journal failed, or the request could not be built).
func (r *runner) send(ctx context.Context) (Class, time.Duration, error) {
	key := r.op.Key
	if r.c.bug == bugFreshKey {
		key = r.c.newKey()
	}
	actx, cancel := r.clock.WithTimeout(ctx, r.timeout())
	defer cancel()
	// The transport reports the write from its own goroutine.
	var wrote atomic.Bool
	actx = httptrace.WithClientTrace(actx, &httptrace.ClientTrace{
		WroteRequest: func(i httptrace.WroteRequestInfo) { wrote.Store(i.Err == nil) },
	})
	req, err := r.c.Endpoint.NewRequest(actx, key, r.op.Payload)
	if err != nil {
		return NotApplied, 0, fmt.Errorf("build the create request: %w", err)
	}
	req.GetBody = nil // never let net/http resend it

	r.op.Attempts++
	if r.c.bug != bugLateJournal {
		if err := r.save(ctx, state.Submitting); err != nil {
			r.op.Attempts--
			return NotApplied, 0, err
		}
	}
	r.res.Sent++
	ev := Event{Kind: "create", N: r.res.Sent, Key: key, At: r.clock.Now()}
	status, body, retryAfter, err := r.exchange(req)
	if r.c.bug == bugLateJournal {
		if jerr := r.save(ctx, state.Submitting); jerr != nil {
			return NotApplied, 0, jerr
		}
	}
	transportErr := err
	if status != 0 {
		transportErr = nil // an answer arrived; an unreadable body changes nothing
	}
	class := Classify(status, transportErr, wrote.Load())
	if r.c.bug == bugTimeoutIsFinal && status == 0 && class == Unknown {
		class = Refused
	}
	if status != 0 {
		r.res.Status = status
	}
	if class == Applied && r.c.Endpoint.ResourceID != nil {
		r.op.ResourceID = r.c.Endpoint.ResourceID(body)
	}
	ev.Class, ev.Status, ev.Took = class, status, r.clock.Now().Sub(ev.At)
	if err != nil {
		ev.Error = err.Error()
	}
	r.res.Events = append(r.res.Events, ev)
	return class, retryAfter, nil
}

// exchange sends one create request and reads its answer. A status with
// an error means the answer's body could not be read; the status still
// says what the server did.
func (r *runner) exchange(req *http.Request) (status int, body []byte, retryAfter time.Duration, err error) {
	resp, err := r.c.Doer.Do(req)
	if err != nil {
		return 0, nil, 0, err
	}
	defer resp.Body.Close()
	if d, ok := RetryAfter(resp.Header.Get("Retry-After"), r.clock.Now()); ok {
		retryAfter = d
	}
	body, err = io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	return resp.StatusCode, body, retryAfter, err
}

// reconcile asks the server about the operation once.
func (r *runner) reconcile(ctx context.Context) (Finding, error) {
	r.res.Lookups++
	ev := Event{Kind: "lookup", N: r.res.Lookups, At: r.clock.Now()}
	actx, cancel := r.clock.WithTimeout(ctx, r.timeout())
	defer cancel()
	f, err := r.c.Reconciler.Reconcile(actx, r.op)
	ev.Fate, ev.Took = f.Fate, r.clock.Now().Sub(ev.At)
	if err != nil {
		ev.Error = err.Error()
	}
	r.res.Events = append(r.res.Events, ev)
	return f, err
}

// pause waits before the next step: full jitter, or the server's
// Retry-After if longer. It refuses a pause that would reach the
// deadline, since nothing could be sent after it.
func (r *runner) pause(ctx context.Context, retryAfter time.Duration) (string, bool) {
	d := max(r.p.backoff(r.pauses, r.rnd), retryAfter)
	r.pauses++
	if d >= r.remaining() && r.c.bug != bugNoDeadline {
		if retryAfter > 0 && retryAfter >= r.remaining() {
			return fmt.Sprintf("the server's Retry-After (%v) reaches past the deadline", retryAfter), false
		}
		return "deadline reached", false
	}
	r.res.Events = append(r.res.Events, Event{Kind: "pause", At: r.clock.Now(), Pause: d})
	if err := r.clock.Sleep(ctx, d); err != nil {
		return "cancelled", false
	}
	return "", true
}

// save journals the operation in state s. It outlives a cancelled ctx:
// what was sent must be on record whatever the caller does.
func (r *runner) save(ctx context.Context, s state.State) error {
	r.op.State, r.op.UpdatedAt = s, r.clock.Now()
	return r.c.Journal.Update(context.WithoutCancel(ctx), r.op)
}

// end journals the state this run leaves and returns the result.
func (r *runner) end(ctx context.Context, s state.State, reason string, err error) (Result, error) {
	if s != r.op.State {
		if jerr := r.save(ctx, s); jerr != nil && err == nil {
			err = jerr
		}
	}
	r.res.Operation, r.res.Reason, r.res.Ended = r.op, reason, r.clock.Now()
	if err != nil {
		err = fmt.Errorf("operation %s (key %s): %w", r.op.ID, r.op.Key, err)
	}
	return r.res, err
}
