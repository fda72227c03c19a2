package scenarios

import (
	"context"
	"fmt"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/scenarios/property"
	"github.com/idemspec/idemspec/targets"
)

// Check is a check of `idemspec run` (a server check) or of `idemspec
// client` (a client or workflow check): the one shape of every check,
// over its subject, what its skip rule reads (the target file) and what
// its plan reads. Each lives in a file of its own, with the pure judge
// its Run ends in, so adding a check is writing one file (and naming the
// mutant that catches it).
type Check = check.Check[subject, *targets.Target, Planning]

// subject is what a check's run drives: the server's Env (a server
// check) or one trial of the client command (a client or workflow
// check). Each gathers the evidence its check's report shows.
type subject interface{ evidence() *check.Evidence }

// onEnv is a server check's subject: the Env it drives, the run's
// inputs (seed, tuning), the history it records and the evidence it
// gathers besides.
type onEnv struct {
	e  *harness.Env
	in Inputs
	h  *history.History
	ev *check.Evidence
}

func (s *onEnv) evidence() *check.Evidence { return s.ev }
func (t *trial) evidence() *check.Evidence { return t.ev }

// serverRun is a server check's Run: f drives the Env, records the
// history and ends in the check's judge.
func serverRun(f func(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error)) func(context.Context, subject) (check.Verdict, error) {
	return func(ctx context.Context, s subject) (check.Verdict, error) {
		on := s.(*onEnv)
		return f(ctx, on.e, on.h, on.ev)
	}
}

// recordRun is the Run of a server check whose trial is recorded by
// record, scoped by the check's id, and judged by judge: the checks
// that judge one kind of trial two ways (K1 and K1a, S3 and S3a, K2)
// each record their own.
func recordRun[R any](id string, record func(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence, scope string) (R, error), judge func(R) check.Verdict) func(context.Context, subject) (check.Verdict, error) {
	return serverRun(func(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error) {
		rec, err := record(ctx, e, h, ev, id)
		if err != nil {
			return check.Verdict{}, err
		}
		return judge(rec), nil
	})
}

// untilCaught runs up to n rounds, judging every record so far after
// each: a sound target costs every round, and a broken one stops at the
// first catch.
func untilCaught[R any](n int, round func(i int) (R, error), judge func(...R) check.Verdict) (check.Verdict, error) {
	var recs []R
	for i := 1; i <= n; i++ {
		rec, err := round(i)
		if err != nil {
			return check.Verdict{}, err
		}
		recs = append(recs, rec)
		if v := judge(recs...); v.Status != check.PASS {
			return v, nil
		}
	}
	return judge(recs...), nil
}

// serverRunWith is the Run of a server check that draws from the run's
// seed or is tuned: f gets the run's Inputs beside the Env.
func serverRunWith(f func(ctx context.Context, in Inputs, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error)) func(context.Context, subject) (check.Verdict, error) {
	return func(ctx context.Context, s subject) (check.Verdict, error) {
		on := s.(*onEnv)
		return f(ctx, on.in, on.e, on.h, on.ev)
	}
}

// trialRun is a client or workflow check's Run: f runs the client
// command under test in one trial and judges it.
func trialRun(f func(ctx context.Context, t *trial) (check.Verdict, error)) func(context.Context, subject) (check.Verdict, error) {
	return func(ctx context.Context, s subject) (check.Verdict, error) { return f(ctx, s.(*trial)) }
}

// Checks lists the checks of `idemspec run` and `idemspec client` in ID
// order (S1 < S2 < S10 < T1).
func Checks() []*Check { return check.Checks[subject, *targets.Target, Planning]() }

// Lookup finds a check by ID.
func Lookup(id string) (*Check, bool) { return check.Find[subject, *targets.Target, Planning](id) }

// operationOf is the name of the operation e drives ("": the target
// has one unnamed operation, or no Env in client mode).
func operationOf(e *harness.Env) string {
	if e == nil {
		return ""
	}
	return e.Target.Operation
}

// Planned is what one check will do to the target: what --dry-run
// prints. Skip says why the check will skip, if it will.
type Planned struct {
	Check check.Entry
	// Operation is the operation the check drives ("": the only one).
	Operation string
	check.Plan
	Skip string
}

// Planning is what a check's Plan may read: the target, the run's
// settings, the burst size after the concurrency ceiling, the properties'
// configuration and which checks the run selected.
type Planning struct {
	Target   *targets.Target
	Settings harness.Settings
	Burst    int
	Tuning   Tuning
	Property property.Config
	Selected func(id string) bool
}

// commitPolls bounds the oracle polls while the harness waits for a
// commit whose answer it lost.
func commitPolls(s harness.Settings) int { return int(s.CommitWait / harness.CommitPoll) }

// fixed is the plan of a check that sends n requests, whatever happens.
func fixed(n int) func(Planning) check.Plan {
	return func(Planning) check.Plan { return check.Plan{Requests: n, MaxRequests: n} }
}

// keyRequired is the Needs of the checks that send a create without the
// key: it runs unprotected unless the key is declared required.
func keyRequired(t *targets.Target) string {
	if t.Key.Required {
		return ""
	}
	return fmt.Sprintf("the target does not declare the key required (profile %s): a create without it runs unprotected; set key.required: true to test it", t.Profile.Name)
}

// PreflightRequests is what a run sends before any check: an oracle
// read, one create of the harness's own, and an oracle read of that
// create's marker, which create.id_field's value is compared with (a
// lookup oracle asks about up to targets.MaxIDFieldCandidates of the
// answer's values there).
const PreflightRequests = 3

// PreflightMarkers are the preflight's markers: the oracle read's and
// the create's, each with its setup where the operation has one.
const PreflightMarkers = 2

// withSetup adds to a check's plan the setup requests of its markers
// (setup is the operation's count of setup requests).
func withSetup(p check.Plan, setup int) check.Plan {
	if setup == 0 || p.MaxRequests == 0 {
		return p // nothing sent: a check that shares another's search
	}
	p.Requests += setup * max(p.Markers, 1)
	p.MaxRequests += setup * max(p.MaxMarkers, p.Markers, 1)
	return p
}

// Plan lists what the selected checks will do to t, without sending
// anything, from each check's own Plan and Needs: once per operation.
func Plan(t *targets.Target, s harness.Settings, tu Tuning, pc property.Config, labelFilter string) ([]Planned, error) {
	keep, err := selection(labelFilter)
	if err != nil {
		return nil, err
	}
	var out []Planned
	for _, op := range t.Each() {
		out = append(out, planOperation(op, s, tu, pc, keep)...)
	}
	return out, nil
}

func planOperation(t *targets.Target, s harness.Settings, tu Tuning, pc property.Config, keep func(id string) bool) []Planned {
	p := Planning{Target: t, Settings: s, Burst: s.BurstSize, Tuning: tu, Property: pc.WithDefaults(), Selected: keep}
	if c := s.Limits.Concurrency; c > 0 && c < p.Burst {
		p.Burst = c
	}
	var out []Planned
	for _, c := range Checks() {
		// Client checks judge a client command (`idemspec client`), never
		// a server target: `idemspec run` does not run them.
		if c.Plan == nil || !p.Selected(c.ID) {
			continue
		}
		planned := Planned{Skip: c.Skips(t)}
		if planned.Skip == "" {
			planned.Plan = withSetup(c.Plan(p), len(t.Setup))
		}
		planned.Check, planned.Operation = c.Entry(), t.Operation
		out = append(out, planned)
	}
	return out
}
