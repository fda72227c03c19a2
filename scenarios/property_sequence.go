package scenarios

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"pgregory.net/rapid"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/harness/model"
)

// The pools are small so that keys collide and payloads change under a
// used key often. Each sequence gets fresh keys and markers for these
// names, so sequences never see each other's resources.
var (
	keyNames = []string{"k1", "k2", "k3"}
	payloads = []string{"100", "200"}
)

// propertyRun is one CheckProperty call: the sequences rapid drew, the
// requests spent, and the shortest counterexample seen.
type propertyRun struct {
	ctx      context.Context
	env      *harness.Env
	cfg      PropertyConfig
	statuses model.Statuses
	actions  []action
	start    time.Time

	sequences   int
	skipped     int // sequences the budget left no request for
	unpaid      int // actions the budget could not pay for
	spent       int // create requests sent
	steps       int
	drawn       map[string]int
	freshBursts int // bursts on a key no request had bound yet: the race window
	err         error

	best       *sequence
	first      time.Duration
	firstSteps int
}

// poolKey is one key of a sequence: its name in the pool, the real key,
// its marker, and the exact bytes of each payload (retries resend them).
// Every payload under a key carries the key's marker, so the oracle counts
// what any payload with the key created, a wrongly accepted one included.
type poolKey struct {
	name, key, marker string
	bodies            map[string][]byte
}

// sequence is one history rapid draws: its keys, the model judging it,
// and the steps taken.
type sequence struct {
	r        *propertyRun
	model    *model.Model
	keys     map[string]*poolKey
	touched  []string
	h        *history.History
	steps    []history.Step
	counts   map[string]int // the oracle's last count per key
	readings map[string]check.Reading
	bursts   []history.Burst
	judged   int               // steps the invariant has judged
	pending  []check.Violation // the current step's answers broke these
	failed   []check.Violation
}

// sequence is rapid's property: one random history, judged after every step.
func (r *propertyRun) sequence(t *rapid.T) {
	if r.err != nil {
		return
	}
	if r.exhausted(1) {
		r.skipped++
		return
	}
	s, err := r.newSequence()
	if err != nil {
		r.fail(t, err)
	}
	r.sequences++
	defer r.keep(s)
	acts := map[string]func(*rapid.T){"": s.invariant}
	for _, a := range r.actions {
		acts[a.name] = func(t *rapid.T) { s.act(t, a) }
	}
	t.Repeat(acts)
	s.reconcile(t)
}

func (r *propertyRun) newSequence() (*sequence, error) {
	s := &sequence{
		r: r, model: model.New(r.statuses), keys: map[string]*poolKey{}, h: &history.History{},
		counts: map[string]int{}, readings: map[string]check.Reading{},
	}
	for _, name := range keyNames {
		k := &poolKey{name: name, key: r.env.NewKey(), marker: r.env.NewMarker(check.P1.ID), bodies: map[string][]byte{}}
		for _, p := range payloads {
			b, err := r.env.Body(k.marker, p)
			if err != nil {
				return nil, err
			}
			k.bodies[p] = b
		}
		s.keys[name] = k
	}
	return s, nil
}

// keep remembers the shortest failing sequence (the later one on a tie:
// shrinking only ever accepts smaller ones).
func (r *propertyRun) keep(s *sequence) {
	if s.failed == nil {
		return
	}
	if r.first == 0 {
		r.first, r.firstSteps = time.Since(r.start), len(s.steps)
	}
	if r.best == nil || len(s.steps) <= len(r.best.steps) {
		r.best = s
	}
}

// fail stops the run: the harness, not the target, went wrong. rapid
// cannot reproduce it (every later sequence returns at once), so it stops
// searching.
func (r *propertyRun) fail(t *rapid.T, err error) {
	if r.err == nil {
		r.err = err
	}
	t.Fatalf("the harness could not run the sequence")
}

// exhausted says whether cost more create requests would break the budget.
func (r *propertyRun) exhausted(cost int) bool {
	return r.cfg.Budget > 0 && r.spent+cost > r.cfg.Budget
}

// afford reserves cost create requests, or says the budget is spent.
func (r *propertyRun) afford(cost int) bool {
	if r.exhausted(cost) {
		return false
	}
	r.spent += cost
	return true
}

// maxSteps bounds a sequence: rapid draws its length with no upper bound.
func (r *propertyRun) maxSteps() int { return 4 * r.cfg.Steps }

// act runs one action unless the sequence is at its bound; an action the
// budget cannot pay for does nothing.
func (s *sequence) act(t *rapid.T, a action) {
	if len(s.steps) >= s.r.maxSteps() {
		return
	}
	before := len(s.steps)
	a.run(s, t)
	if err := s.r.ctx.Err(); err != nil {
		s.r.fail(t, err)
	}
	if len(s.steps) > before {
		s.r.drawn[a.name]++
		s.r.steps++
	} else if s.r.cfg.Budget > 0 {
		s.r.unpaid++
	}
}

func (s *sequence) drawKey(t *rapid.T) *poolKey {
	k := s.keys[rapid.SampledFrom(keyNames).Draw(t, "key")]
	if !slices.Contains(s.touched, k.name) {
		s.touched = append(s.touched, k.name)
		slices.Sort(s.touched)
	}
	return k
}

func drawPayload(t *rapid.T) string { return rapid.SampledFrom(payloads).Draw(t, "payload") }

// begin records a step before it runs, with what the model expects.
func (s *sequence) begin(action string, k *poolKey, payload, fault string) *history.Step {
	st := history.Step{N: len(s.steps) + 1, Action: action, Key: k.name, Payload: payload, Fault: fault}
	if payload == "" {
		st.Expected = s.model.ExpectLookup(k.name)
	} else {
		st.Expected = s.model.Expect(k.name, payload)
	}
	s.steps = append(s.steps, st)
	s.pending = nil
	return &s.steps[len(s.steps)-1]
}

// judge feeds one answer to the model.
func (s *sequence) judge(k *poolKey, payload string, x history.Exchange, settled bool) {
	s.pending = append(s.pending, s.model.Answer(model.Answer{
		Key: k.name, Payload: payload, Outcome: x.Outcome, Status: x.Status, ID: x.ResourceID, Settled: settled, Seq: x.Seq,
	})...)
}

// finish records what a step's exchanges came back with.
func finish(st *history.Step, xs []history.Exchange) {
	st.Outcome = outcomes(xs)
	st.Observed = answers(xs)
	for _, x := range xs {
		st.Seqs = append(st.Seqs, x.Seq)
	}
}

// settle sends payload under k on the clean lane, again while the target
// answers "in flight", as a careful client does.
func (s *sequence) settle(k *poolKey, payload, step string) []history.Exchange {
	e := s.r.env
	xs := e.SendUntilSettled(s.r.ctx, s.h, harness.Attempt{
		Step: step, Lane: e.Clean, Key: k.key, Body: k.bodies[payload], Variant: payload,
	}, e.Target.InProgressTimeout+e.Settings.RequestTimeout)
	s.r.spent += len(xs) - 1 // the first was paid for by afford
	return xs
}

// invariant runs after every step: the oracle's count for each key the
// sequence touched, judged with the step's answers.
func (s *sequence) invariant(t *rapid.T) {
	if s.judged == len(s.steps) {
		return
	}
	s.judged = len(s.steps)
	st := &s.steps[len(s.steps)-1]
	vs := s.pending
	var seen []string
	for _, name := range s.touched {
		obs, err := s.observe(name, fmt.Sprintf("after step %d", st.N))
		if err != nil {
			s.r.fail(t, err)
		}
		vs = append(vs, s.model.Oracle(name, obs.Count, obs.IDs)...)
		seen = append(seen, fmt.Sprintf("%s=%d", name, obs.Count))
	}
	st.Observed += "; oracle " + strings.Join(seen, " ")
	if len(vs) > 0 {
		s.stop(t, st, vs)
	}
}

// observe reads the oracle for one key and keeps the reading.
func (s *sequence) observe(name, when string) (check.Reading, error) {
	k := s.keys[name]
	obs, err := s.r.env.Observe(s.r.ctx, k.marker)
	if err != nil {
		return check.Reading{}, fmt.Errorf("oracle: %w", err)
	}
	r := toReading(s.r.env, k.marker, name+" "+when, obs)
	s.counts[name], s.readings[name] = obs.Count, r
	return r, nil
}

// stop ends the sequence as a counterexample. rapid compares the failure
// message between runs, so it names the step and the broken rule only,
// never ids or counts, which differ from run to run.
func (s *sequence) stop(t *rapid.T, st *history.Step, vs []check.Violation) {
	for _, v := range vs {
		st.Broken = append(st.Broken, v.What)
	}
	s.failed = vs
	t.Fatalf("step %d (%s): %s", st.N, st.Action, vs[0].What)
}

// reconcile settles every key a lost answer left open by resending the
// lost payload, then holds the oracle's final counts to what was
// acknowledged or found.
func (s *sequence) reconcile(t *rapid.T) {
	if len(s.steps) == 0 {
		return
	}
	st := history.Step{N: len(s.steps) + 1, Action: "reconcile",
		Expected: "every key acknowledged or found has one resource, every other key none"}
	s.pending = nil
	var xs []history.Exchange
	for _, p := range s.model.Unsettled() {
		if !s.r.afford(1) {
			continue // still open: the final count may go either way
		}
		k := s.keys[p.Key]
		got := s.settle(k, p.Payload, fmt.Sprintf("#%d reconcile %s", st.N, k.name))
		for i, x := range got {
			s.judge(k, p.Payload, x, i == len(got)-1)
		}
		xs = append(xs, got...)
	}
	finish(&st, xs)
	vs := s.pending
	total, want, open := 0, 0, 0
	for _, name := range s.touched {
		obs, err := s.observe(name, "after the reconciliation")
		if err != nil {
			s.r.fail(t, err)
		}
		vs = append(vs, s.model.Final(name, obs.Count, obs.IDs)...)
		total += obs.Count
		switch n := s.model.Settled(name); {
		case n < 0:
			open++
		default:
			want += n
		}
	}
	st.Observed = strings.TrimPrefix(st.Observed+"; ", "; ") +
		fmt.Sprintf("oracle counts %d resources; %d keys acknowledged or found", total, want)
	if open > 0 {
		st.Observed += fmt.Sprintf(", %d still open", open)
	}
	s.steps = append(s.steps, st)
	if len(vs) > 0 {
		s.stop(t, &s.steps[len(s.steps)-1], vs)
	}
}

// evidence is a counterexample as the report shows it.
func (s *sequence) evidence() check.Evidence {
	ev := check.Evidence{Steps: s.steps, History: s.h.Exchanges(), Bursts: s.bursts}
	for _, name := range s.touched {
		if r, ok := s.readings[name]; ok {
			ev.Readings = append(ev.Readings, r)
		}
	}
	return ev
}
