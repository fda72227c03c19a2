package retry

import (
	"fmt"
	"time"
)

// Policy bounds one run of an operation (one call of Run). A resumed
// operation gets the policy of the process that resumes it: the journal
// keeps the state and the key, not the budget.
type Policy struct {
	// MaxAttempts is the most create requests one run sends (at least 1;
	// 0 means DefaultPolicy's). There is no unbounded setting.
	MaxAttempts int
	// MaxLookups is the most reconciliation look-ups one run makes
	// (0: as many as MaxAttempts).
	MaxLookups int
	// AttemptTimeout bounds one request (create or look-up).
	AttemptTimeout time.Duration
	// Deadline bounds the whole run: no request is sent, and no pause
	// lasts, past it.
	Deadline time.Duration
	// BaseBackoff and MaxBackoff shape the pauses: before the n-th retry
	// (n from 0) the client waits a uniformly random time in
	// [0, min(MaxBackoff, BaseBackoff·2^n)] ("full jitter"), or the
	// server's Retry-After if that is longer.
	BaseBackoff time.Duration
	MaxBackoff  time.Duration
}

// DefaultPolicy suits an interactive caller: four attempts within a
// minute.
func DefaultPolicy() Policy {
	return Policy{
		MaxAttempts:    4,
		AttemptTimeout: 10 * time.Second,
		Deadline:       time.Minute,
		BaseBackoff:    200 * time.Millisecond,
		MaxBackoff:     10 * time.Second,
	}
}

// withDefaults fills zero fields from DefaultPolicy and rejects
// negative ones.
func (p Policy) withDefaults() (Policy, error) {
	if p.MaxAttempts < 0 || p.MaxLookups < 0 || p.AttemptTimeout < 0 || p.Deadline < 0 || p.BaseBackoff < 0 || p.MaxBackoff < 0 {
		return p, fmt.Errorf("retry policy %+v: no field may be negative", p)
	}
	d := DefaultPolicy()
	if p.MaxAttempts == 0 {
		p.MaxAttempts = d.MaxAttempts
	}
	if p.MaxLookups == 0 {
		p.MaxLookups = p.MaxAttempts
	}
	if p.AttemptTimeout == 0 {
		p.AttemptTimeout = d.AttemptTimeout
	}
	if p.Deadline == 0 {
		p.Deadline = d.Deadline
	}
	if p.BaseBackoff == 0 {
		p.BaseBackoff = d.BaseBackoff
	}
	if p.MaxBackoff == 0 {
		p.MaxBackoff = max(d.MaxBackoff, p.BaseBackoff)
	}
	return p, nil
}

// backoff is the full-jitter pause before retry n (n from 0).
func (p Policy) backoff(n int, r Random) time.Duration {
	ceiling := p.MaxBackoff
	if n < 62 && p.BaseBackoff <= p.MaxBackoff>>n {
		ceiling = p.BaseBackoff << n
	}
	if ceiling <= 0 {
		return 0
	}
	return time.Duration(r.Int64N(int64(ceiling) + 1))
}
