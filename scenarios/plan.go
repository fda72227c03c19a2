package scenarios

import (
	"fmt"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/targets"
)

// Planned is what one check will do to the target: what --dry-run prints.
// Requests is the usual count against a conforming target; MaxRequests
// bounds it (the in-flight polls and commit waits are bounded by count
// and time), and a budget below it may end the check with ERROR.
type Planned struct {
	Check       check.Check
	Requests    int
	MaxRequests int
	Faults      []string
	Restarts    int
	Skip        string // why the check will skip, if it will
	// Note says what the counts leave out (a property's shrinking).
	Note string
}

// maxSettle mirrors harness's bound on one SendUntilSettled.
const maxSettle = 50

// commitPolls bounds the oracle polls while the harness waits for a
// commit whose answer it lost (one every 5ms).
func commitPolls(s harness.Settings) int { return int(s.CommitWait / (5 * time.Millisecond)) }

// plans says, per check, what its spec sends; burst is the burst size
// after the concurrency ceiling.
var plans = map[string]func(t *targets.Target, s harness.Settings, burst int) Planned{
	"S1": func(_ *targets.Target, s harness.Settings, _ int) Planned {
		return Planned{Requests: s.Repeats + 1, MaxRequests: s.Repeats + 1}
	},
	"S2": func(_ *targets.Target, s harness.Settings, _ int) Planned {
		return Planned{Requests: 6, MaxRequests: 3 + commitPolls(s) + maxSettle,
			Faults: []string{harness.ResponseLoss{}.Name() + " on the faulty lane, first attempt"}}
	},
	"S3":  fixed(4),
	"S3a": fixed(4),
	// S4: burstRounds rounds against a conforming target, each a tight
	// and a widened burst with its follow-up and oracle read.
	"S4": func(_ *targets.Target, _ harness.Settings, b int) Planned {
		bursts := 2 * burstRounds
		return Planned{Requests: bursts * (b + 2), MaxRequests: bursts * (b + maxSettle + 1),
			Faults: []string{harness.Latency{Delay: 2 * time.Millisecond, Jitter: 2 * time.Millisecond}.Name() + " on the faulty lanes, widened bursts"}}
	},
	"S5a": func(t *targets.Target, _ harness.Settings, _ int) Planned {
		return Planned{Requests: 3, MaxRequests: 3, Restarts: 1, Skip: t.CannotRestart()}
	},
	"S5b": func(t *targets.Target, _ harness.Settings, _ int) Planned {
		return Planned{Requests: 4, MaxRequests: 3 + maxSettle, Restarts: 1, Faults: []string{"crash (SIGKILL) mid-request"}, Skip: t.CannotCrash()}
	},
	// S6: two persistent faults; per fault the client's attempts (each a
	// look-up and a create at most), its resumed run and the oracle read,
	// repeated up to landingTries times when the creates did not land.
	"S6": func(_ *targets.Target, s harness.Settings, _ int) Planned {
		per := 2*s.Retry.MaxAttempts + 3
		return Planned{Requests: 2 * per, MaxRequests: 2*landingTries*per + commitPolls(s),
			Faults: []string{harness.Blackhole{}.Name() + ", then " + harness.ResponseLoss{}.Name() + " on the faulty lane while the reference client retries"}}
	},
	"T1": func(t *targets.Target, _ harness.Settings, _ int) Planned {
		if len(t.Tenants) < 2 {
			return Planned{Skip: "fewer than two tenants"}
		}
		return Planned{Requests: 4, MaxRequests: 4}
	},
	"K1":  keyRequired(2),
	"K1a": keyRequired(2),
	"K2":  fixed(7),
	"K2a": fixed(7),
	"K3":  fixed(15), // 5 variations: original, variation, oracle read each
	"K4":  fixed(2),
	"K5": func(_ *targets.Target, _ harness.Settings, b int) Planned {
		return Planned{Requests: b, MaxRequests: maxInFlightBursts * b}
	},
	"K6": func(t *targets.Target, _ harness.Settings, _ int) Planned {
		p := Planned{Requests: 4, MaxRequests: 3 + maxSettle}
		if t.FailTrigger == nil {
			p.Skip = "no fail_trigger"
		} else {
			p.Faults = []string{"fail trigger " + t.FailTrigger.Header + " on the first attempt"}
		}
		return p
	},
}

func fixed(n int) func(*targets.Target, harness.Settings, int) Planned {
	return func(*targets.Target, harness.Settings, int) Planned { return Planned{Requests: n, MaxRequests: n} }
}

func keyRequired(n int) func(*targets.Target, harness.Settings, int) Planned {
	return func(t *targets.Target, _ harness.Settings, _ int) Planned {
		p := Planned{Requests: n, MaxRequests: n}
		if !t.Key.Required {
			p = Planned{Skip: "the key is not declared required"}
		}
		return p
	}
}

// PreflightRequests is what a run sends before any check: an oracle
// read and one create of the harness's own.
const PreflightRequests = 2

// Plan lists what the selected checks will do to t, without sending
// anything. A check the catalogue has but this table does not know is an
// error, so the plan never silently undercounts.
func Plan(t *targets.Target, s harness.Settings, pc PropertyConfig, labelFilter string) ([]Planned, error) {
	keep, err := types.ParseLabelFilter(labelFilter)
	if err != nil {
		return nil, fmt.Errorf("--label-filter %q: %v", labelFilter, err)
	}
	burst := s.BurstSize
	if c := s.Limits.Concurrency; c > 0 && c < burst {
		burst = c
	}
	var out []Planned
	for _, c := range check.All() {
		// Client checks judge a client command (`idemspec client`), never
		// a server target: `idemspec run` does not run them.
		if c.Group == "client" || !keep(labels(c)) {
			continue
		}
		plan, ok := plans[c.ID]
		if c.Group == check.P1.Group {
			plan, ok = propertyPlan(pc, keep(labels(check.P1)) && c.ID != check.P1.ID), true
		}
		if !ok {
			return nil, fmt.Errorf("check %s has no plan: add it to scenarios/plan.go", c.ID)
		}
		p := plan(t, s, burst)
		p.Check = c
		if p.Skip != "" {
			p.Requests, p.MaxRequests, p.Restarts, p.Faults = 0, 0, 0, nil
		}
		out = append(out, p)
	}
	return out, nil
}

// Per property step, as measured against the reference at the defaults:
// about 0.9 steps taken per step asked for (a sequence's length is drawn,
// restarts and crashes are left out), 1.6 creates and 4.5 oracle reads
// and look-ups each. The most a step sends is the largest burst plus an
// oracle read for each of the sequence's five subjects (three keys, the
// keyless creates, the malformed keys) and a look-up.
const (
	propertyPerStep    = 6
	propertyMostInStep = maxBurst + 5 + 1
)

// propertyPlan is P1's and P2's plan: one search serves both, so a check
// whose partner runs too (shared) adds nothing of its own. The search's
// requests are random: Requests is the usual count, MaxRequests the most
// the search itself can send; shrinking a failure adds more, bounded by
// time, and --property-budget caps the creates of both.
func propertyPlan(pc PropertyConfig, shared bool) func(*targets.Target, harness.Settings, int) Planned {
	pc = pc.withDefaults()
	return func(t *targets.Target, _ harness.Settings, _ int) Planned {
		if shared {
			return Planned{Note: "shares P1's search"}
		}
		p := Planned{
			Requests:    pc.Checks * pc.Steps * propertyPerStep,
			MaxRequests: pc.Checks * 4 * pc.Steps * propertyMostInStep,
			Note:        "random sequences; shrinking a failure sends more, for up to " + pc.ShrinkTime.String(),
		}
		if pc.Budget > 0 {
			p.Note += fmt.Sprintf("; at most %d creates (--property-budget)", pc.Budget)
		}
		if t.CannotRestart() == "" {
			p.Restarts = pc.Checks // one per sequence at most
			p.Faults = append(p.Faults, "restarts")
		}
		if t.CannotCrash() == "" && pc.Crashes > 0 {
			p.Restarts += pc.Crashes
			p.Faults = append(p.Faults, fmt.Sprintf("%d crash mid-request (more where no work runs)", pc.Crashes))
		}
		p.Faults = append(p.Faults, harness.ResponseLoss{}.Name()+" or "+harness.ResetPeer{}.Name()+" on lost answers")
		return p
	}
}
