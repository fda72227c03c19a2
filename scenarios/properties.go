package scenarios

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/scenarios/property"
)

// propertyTimeout bounds a property spec however many checks and steps
// were asked for; at the defaults it takes seconds.
const propertyTimeout = 30 * time.Minute

// sharedSearch is the property search on one Env, which both property
// specs share (the runner makes one per Env and hands it to both in
// their Inputs): the first to run makes it, the other reads it.
type sharedSearch struct {
	sync.Mutex
	done bool
	res  property.Results
	err  error
	// by is the check whose spec ran the search, in took.
	by   string
	took time.Duration
}

// propertySpec is a property check's run: the first of P1 and P2 to run
// makes the Env's one search, from the run's seed and property
// configuration; the other reads its result.
func propertySpec(id string) func(context.Context, Inputs, *harness.Env, *history.History, *check.Evidence) (check.Verdict, error) {
	return func(ctx context.Context, in Inputs, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error) {
		searched := in.search
		searched.Lock()
		if !searched.done {
			searched.done = true
			cfg := in.Property
			cfg.Seed = in.Seed
			cfg.Log = in.Log
			if o := in.Observer; o != nil {
				cfg.Progress = func(p property.Progress) { o.Searching(p.String()) }
			}
			searched.by = id
			start := time.Now()
			searched.res, searched.err = property.Search(ctx, e, cfg)
			searched.took = time.Since(start)
		}
		res, err := searched.res, searched.err
		by, took := searched.by, searched.took
		searched.Unlock()
		if err != nil {
			return check.Verdict{}, err
		}
		r := res.Must
		if id == "P2" {
			r = res.Should
		}
		// The counterexample's exchanges, numbered as its steps cite them.
		for _, x := range r.Evidence.History {
			h.Add(x)
		}
		*ev = r.Evidence
		ev.Search = took
		if by != id {
			// Its duration is only this read: say where the time went.
			ev.Notes = append(slices.Clone(ev.Notes), fmt.Sprintf("one search serves P1 and P2: it ran in %s's time (%s)", by, took.Round(time.Millisecond)))
		}
		return r.Verdict, nil
	}
}

// Per property step, as measured against the reference at the defaults:
// about 0.9 steps taken per step asked for (a sequence's length is drawn,
// restarts and crashes are left out), 1.6 creates and 4.5 oracle reads
// and look-ups each. The most a step sends is the largest burst plus an
// oracle read for each of the sequence's five subjects (three keys, the
// keyless creates, the malformed keys) and a look-up.
const (
	propertyPerStep    = 6
	propertyMostInStep = property.MaxBurst + 5 + 1
)

// propertyPlan is P1's and P2's plan: one search serves both, so a check
// whose partner runs too adds nothing of its own (partner "": it never
// shares). The search's requests are random: Requests is the usual count,
// MaxRequests the most the search itself can send; shrinking a failure
// adds more, bounded by time, and --property-budget caps the creates of
// both.
func propertyPlan(partner string) func(Planning) check.Plan {
	return func(pl Planning) check.Plan {
		pc, t := pl.Property, pl.Target
		if partner != "" && pl.Selected(partner) {
			return check.Plan{Note: "shares " + partner + "'s search"}
		}
		p := check.Plan{
			Requests:    pc.Sequences * pc.Steps * propertyPerStep,
			MaxRequests: pc.Sequences * 4 * pc.Steps * propertyMostInStep,
			Markers:     pc.Sequences * property.MarkersPerSequence,
			MaxMarkers:  pc.Sequences * 4 * property.MarkersPerSequence,
			Note:        "random sequences; shrinking a failure sends more, for up to " + pc.ShrinkTime.String(),
		}
		if pc.Budget > 0 {
			p.Note += fmt.Sprintf("; at most %d creates (--property-budget)", pc.Budget)
		}
		if t.CannotRestart() == "" {
			p.Restarts = pc.Sequences // one per sequence at most
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
