package property

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
	"github.com/idemspec/idemspec/targets"
)

// The pools are small so that keys collide and payloads change under a
// used key often. Each sequence gets fresh keys and markers for these
// names, so sequences never see each other's resources.
var (
	keyNames = []string{"k1", "k2", "k3"}
	payloads = []string{"100", "200"}
)

// pool names what a sequence makes a marker for: each pool key, the
// keyless requests and the malformed keys.
var pool = append(slices.Clone(keyNames), model.NoKey, model.OddKeys)

// MarkersPerSequence is how many markers a sequence makes (each sends a
// setup, for an action on a parent).
var MarkersPerSequence = len(pool)

// poolKey is one key of a sequence: its name in the pool, the real key,
// its marker, and the exact bytes of each payload (retries resend them).
// Every payload under a key carries the key's marker, so the oracle counts
// what any payload with the key created, a wrongly accepted one included.
type poolKey struct {
	name, key, marker string
	bodies            map[string][]byte
	// tenant is whose credentials the key's requests and oracle reads
	// carry (nil: the target's own headers); see twinName.
	tenant *targets.Tenant
}

// in is ctx carrying the key's tenant, if it has one.
func (k *poolKey) in(ctx context.Context) context.Context {
	if k.tenant == nil {
		return ctx
	}
	return targets.AsTenant(ctx, *k.tenant)
}

// sequence is one history rapid draws: the actions drawn (plan), those
// taken so far, the model judging them, and the steps recorded.
type sequence struct {
	r     *pass
	plan  []planned
	done  int // actions of the plan taken
	model *model.Model
	// keys are the pool's keys, and the subjects of the creates sent
	// without a key (model.NoKey) or with a malformed one (model.OddKeys):
	// these have a marker and bodies but no key.
	keys     map[string]*poolKey
	touched  []string
	h        *history.History
	steps    []history.Step
	counts   map[string]int // the oracle's last count per key
	readings map[string]check.Reading
	bursts   []history.Burst
	restarts []history.Restart
	// crashedAt is when a request with the key was crashed (crashed, its
	// payload): its claim may block the key until the target's
	// in-progress timeout, and the reconciliation retries it after that.
	crashedAt map[string]time.Time
	crashed   map[string]string
	// landed: a crash landed in a request's work; the sequence takes no
	// more actions. restarted: the sequence restarted the target.
	// swallowed: an answer was swallowed while its work went on.
	landed, restarted, swallowed bool
	// crashes is how many crashes may still land in a request's work;
	// startCrashes what the sequence started with (a replay needs it).
	crashes, startCrashes int
	// heldOpening: the first action drawn was a crash that would have
	// landed, held for want of budget (a replay must not have one).
	heldOpening bool
	pending     []model.Finding // the current step's answers broke these
	// turn is the current step's hold on the pool's gate (nil alone).
	turn   *turn
	failed []check.Violation
	// noted are the findings of the other level, by step number.
	noted   []check.Violation
	notedAt map[int][]string
}

// sequence is rapid's property: one random history. Actions draw what
// they will do; the invariant takes each as soon as it is drawn and holds
// the model's rules after it; then every key is reconciled.
func (r *pass) sequence(t *rapid.T) {
	r.sequences++
	r.report()
	if r.err != nil || r.shrunk() || r.pool.halted(r) {
		return
	}
	if r.overdue() {
		r.late++
		return
	}
	if r.exhausted(1) {
		r.skipped++
		return
	}
	s, err := r.newSequenceInTurn()
	if err != nil {
		r.fail(t, err)
	}
	r.ran++
	defer r.pool.enlist(r, s)()
	// While searching, the sequence may land the search's next crash.
	// While shrinking, a sequence lands one if the counterexample did:
	// shrinking keeps to what failed, and a crash that lands costs the
	// target's in-progress timeout.
	s.crashes = r.ledger.crashesLeft()
	if r.best != nil {
		s.crashes = 0
		if r.best.landed {
			s.crashes = 1
		}
	}
	s.startCrashes = s.crashes
	if r.cfg.Counterexample != "" {
		s.replayPlan(t)
		return
	}
	if a, ok := r.action("crash"); ok && rapid.IntRange(0, 1).Draw(t, "open with a crash") == 1 {
		s.draw(t, a)
	}
	acts := map[string]func(*rapid.T){"": s.invariant}
	for _, a := range r.actions {
		acts[a.name] = func(t *rapid.T) { s.draw(t, a) }
	}
	t.Repeat(acts)
	s.conclude(t)
}

// newSequenceInTurn makes a sequence in a step's turn: its markers'
// bodies may send the target's setup requests (a parent for an action),
// which a restart or crash must not cut.
func (r *pass) newSequenceInTurn() (*sequence, error) {
	t, err := r.pool.enter(r.ctx, false)
	if err != nil {
		return nil, err
	}
	defer t.leave()
	return r.newSequence()
}

func (r *pass) newSequence() (*sequence, error) {
	s := &sequence{
		r: r, model: model.New(r.model), keys: map[string]*poolKey{}, h: &history.History{},
		counts: map[string]int{}, readings: map[string]check.Reading{}, notedAt: map[int][]string{},
		crashedAt: map[string]time.Time{}, crashed: map[string]string{},
	}
	for _, name := range pool {
		k := &poolKey{name: name, marker: r.env.NewMarker("P"), bodies: map[string][]byte{}}
		if slices.Contains(keyNames, name) {
			k.key = r.env.NewKey()
		}
		for _, p := range payloads {
			b, err := r.env.Body(k.marker, p)
			if err != nil {
				return nil, err
			}
			k.bodies[p] = b
		}
		s.keys[name] = k
	}
	if tn := r.twinTenant; tn != nil {
		// Each pool key has a twin: the same key and bytes (marker
		// included) sent as another tenant, which must get a resource of
		// its own or a refusal (T1's rule, within random sequences).
		for _, name := range keyNames {
			k := *s.keys[name]
			k.name, k.tenant = twinName(name), tn
			s.keys[k.name] = &k
			s.model.Twin(name, k.name)
		}
	}
	return s, nil
}

// draw adds an action to the plan, unless the sequence is at its bound.
func (s *sequence) draw(t *rapid.T, a action) {
	if len(s.plan) >= s.r.maxSteps() {
		return
	}
	p := a.draw(t)
	p.action = a
	s.plan = append(s.plan, p)
}

// invariant runs after every action: it takes the actions drawn and not
// yet taken, and after each, holds the step's answers and the oracle's
// counts to the model. Failures are raised on this one line, whether
// observed now or remembered (see memo), so rapid sees one failure.
func (s *sequence) invariant(t *rapid.T) {
	if msg := s.advance(t); msg != "" {
		t.Fatalf("%s", msg)
	}
}

// advance takes the planned actions, or, while shrinking, answers from
// the memo when an identical sequence already ran. It returns the
// failure message of a broken step.
func (s *sequence) advance(t *rapid.T) string {
	if s.r.best != nil {
		if msg, ok := s.r.memo.failedAt(s.plan); ok {
			s.r.replayed++
			return msg
		}
		if s.r.memo.continues(s.plan) {
			return "" // a sequence that went on from here is known: wait and see
		}
	}
	return s.take(t)
}

// take runs every planned action not yet taken, each followed by the
// invariant, and stops at the first step that broke a rule of the run's
// level.
func (s *sequence) take(t *rapid.T) string {
	for s.done < len(s.plan) {
		p := s.plan[s.done]
		s.done++
		if s.landed {
			continue
		}
		if !s.r.afford(p.cost()) {
			s.r.unpaid++
			continue
		}
		vs, err := s.takeOne(p)
		if err != nil {
			s.r.fail(t, err)
		}
		if vs == nil && s.r.pool.halted(s.r) {
			return "" // another sequence failed: the pool stops
		}
		if len(vs) > 0 {
			return s.stop(vs)
		}
		if s.r.best != nil {
			s.r.memo.wentOn(s.plan[:s.done])
		}
	}
	return ""
}

// takeOne takes one planned action, unless hold leaves it out, and
// judges it: an action on the whole target (a restart, a crash) alone,
// with the pool's other sequences between their steps.
func (s *sequence) takeOne(p planned) ([]check.Violation, error) {
	// take reserved the action's creates; one not taken gives them back.
	taken := false
	defer func() {
		if !taken {
			s.r.ledger.refund(p.cost())
		}
	}()
	whole := p.action.name == "restart" || p.action.name == "crash"
	if whole {
		defer s.r.pool.landed(s)
		held, err := s.leftOutInTurn(p)
		if err != nil || held {
			return nil, err
		}
	}
	enter := s.r.pool.enter
	if p.action.name == "restart" {
		// The restart gathers the gate while its request is under way,
		// and takes it whole once the answer is in (see restart).
		enter = func(ctx context.Context, _ bool) (*turn, error) { return s.r.pool.gather(ctx) }
	}
	t, err := enter(s.r.ctx, whole)
	if err != nil {
		return nil, err
	}
	s.turn = t
	defer func() { t.leave(); s.turn = nil }()
	if s.r.pool.halted(s.r) {
		return nil, nil
	}
	if whole && s.r.pool.unsafeCrash(s, p) {
		s.r.held++
		s.r.heldForOthers++
		return nil, nil
	}
	if s.swallows(p) && s.r.pool.holdsLost(s) {
		s.r.heldForCrash++
		return nil, nil
	}
	if s.hold(p) {
		s.r.held++
		return nil, nil
	}
	taken = true
	if err := s.step(p); err != nil {
		return nil, err
	}
	if err := t.lost(); err != nil {
		return nil, err
	}
	fs, err := s.check(p)
	if err != nil {
		return nil, err
	}
	return s.sort(fs), nil
}

// sort keeps the findings of the run's level and notes the others; the
// first sequence to break a SHOULD rule while searching is remembered.
func (s *sequence) sort(fs []model.Finding) []check.Violation {
	var out []check.Violation
	for _, f := range fs {
		if f.Level == s.r.level {
			out = append(out, f.Violation)
			continue
		}
		s.noted = append(s.noted, f.Violation)
		n := s.steps[len(s.steps)-1].N
		s.notedAt[n] = append(s.notedAt[n], f.What)
		if f.Level == check.SHOULD && s.r.shouldSeen == nil && s.r.best == nil {
			s.r.shouldSeen, s.r.shouldIndex, s.r.shouldAt = s, s.r.number()-1, time.Since(s.r.start)
		}
	}
	return out
}

// markNoted shows the noted findings as the steps' broken rules, for a
// sequence reported for rules that did not stop it.
func (s *sequence) markNoted() {
	for i := range s.steps {
		s.steps[i].Broken = s.notedAt[s.steps[i].N]
	}
}

// hold says whether to leave out a restart or a crash the sequence has
// no room for. A sequence restarts the target once at most (a managed
// process takes a while to come back). A crash that would land in a
// request's work (the key is free, so the request runs its work) leaves
// its key claimed until the target's in-progress timeout, which the
// reconciliation waits out: it lands only as a sequence's first action,
// and only while the search has crashes left (Config.Crashes);
// then it ends the sequence, so that its counterexample is that crash and
// the retry, nothing to shrink away at seconds a try. A crash after an
// answer was swallowed counts as landing too: the server may still be
// finishing that request's work (the harness gave up once the oracle
// showed the commit), and the crash abandons its claim. Crashes on a key
// whose request does no work (replayed, refused), with nothing else in
// flight, cost nothing and go anywhere.
func (s *sequence) hold(p planned) bool {
	if s.leftOut(p) {
		s.heldOpening = s.heldOpening || (p.action.name == "crash" && len(s.steps) == 0)
		return true
	}
	if p.action.name == "restart" {
		s.restarted = true
		return false
	}
	if !s.lands(p) {
		return false
	}
	s.landed, s.crashes = true, s.crashes-1
	if s.r.best == nil {
		s.r.ledger.landCrash()
	}
	return false
}

// leftOut says whether hold leaves p out, without taking it: a second
// restart, or a crash that would land with no room for one. The ledger,
// shared with the pool's other sequences, may have run out since this
// one started; it never fills again, so a crash left out stays out.
func (s *sequence) leftOut(p planned) bool {
	switch {
	case p.action.name == "restart":
		return s.restarted
	case s.lands(p):
		return len(s.steps) > 0 || s.crashes == 0 || (s.r.best == nil && s.r.ledger.crashesLeft() == 0)
	}
	return false
}

// lands says whether p is a crash that would land in a request's work.
func (s *sequence) lands(p planned) bool {
	return p.action.name == "crash" && (s.model.WillCreate(p.key, p.payload) || s.swallowed)
}

// swallows says whether p loses an answer while the server's work goes
// on (see submitLost): where the model says a correct server will create
// the key's resource.
func (s *sequence) swallows(p planned) bool {
	if p.action.name != "submit-lost" {
		return false
	}
	_, crashed := s.crashedAt[p.key]
	return !crashed && s.counts[p.key] == 0 && s.model.WillCreate(p.key, p.payload)
}

// leftOutInTurn holds a restart or a crash that hold leaves out, or a
// crash that another sequence's lost answer makes unsafe, before it
// waits for the pool's other sequences to be between their steps: left
// out, it touches nothing of the target, and most restarts and crashes
// drawn are (a sequence restarts once). The sequence's model is read in
// a step's turn, since another's restart updates it. A crash that would
// land waits for the others' lost answers to end instead, off the gate
// (awaitSafeCrash): the search's crashes are few, and each is what
// catches the bugs of a request's work cut short.
func (s *sequence) leftOutInTurn(p planned) (bool, error) {
	t, err := s.r.pool.enter(s.r.ctx, false)
	if err != nil {
		return false, err
	}
	if s.leftOut(p) {
		t.leave()
		s.hold(p)
		s.r.held++
		return true, nil
	}
	unsafe, lands := s.r.pool.unsafeCrash(s, p), s.lands(p)
	t.leave()
	if unsafe && !(lands && s.r.pool.awaitSafeCrash(s.r.ctx, s.r, s)) {
		s.r.held++
		s.r.heldForOthers++
		return true, nil
	}
	return false, nil
}

// step takes one planned action and records it.
func (s *sequence) step(p planned) error {
	k := s.keys[p.key]
	if k != nil && !slices.Contains(s.touched, k.name) {
		s.touched = append(s.touched, k.name)
		slices.Sort(s.touched)
	}
	s.pending = nil
	s.steps = append(s.steps, history.Step{N: len(s.steps) + 1, Key: p.key, Payload: p.payload})
	st := &s.steps[len(s.steps)-1]
	s.r.drawn[p.action.name]++
	s.r.steps++
	s.r.report()
	if len(s.steps) == 1 && s.r.best != nil {
		s.r.idle++ // one more sequence run against the target while shrinking
	}
	if err := p.action.run(s, st, k, p); err != nil {
		return err
	}
	return s.r.ctx.Err()
}

// check reads the oracle for the keys the step may have changed and
// judges the step's answers and those counts. A request with one key can
// change only what carries that key's marker (the key and its twin); a
// restart or a crash may change every key. The reconciliation reads
// every key at the end, so a key left unread here is still judged, and
// the oracle reads, most of a step's requests, stay near one per step.
func (s *sequence) check(p planned) ([]model.Finding, error) {
	st := &s.steps[len(s.steps)-1]
	fs := s.pending
	names := s.touched
	if k := s.keys[p.key]; k != nil && p.action.name != "crash" && p.action.name != "restart" {
		names = slices.DeleteFunc(slices.Clone(s.touched), func(name string) bool { return s.keys[name].marker != k.marker })
	}
	var seen []string
	for _, name := range names {
		obs, err := s.observe(name, fmt.Sprintf("after step %d", st.N))
		if err != nil {
			return nil, err
		}
		fs = append(fs, s.model.Read(model.Reading{Key: name, Count: obs.Count, IDs: obs.IDs}, false)...)
		seen = append(seen, fmt.Sprintf("%s=%d", name, obs.Count))
	}
	st.Observed += "; oracle " + strings.Join(seen, " ")
	return fs, nil
}

// judge feeds one answer with a pool key to the model.
func (s *sequence) judge(k *poolKey, payload string, x history.Exchange, settled, triggered bool) {
	s.pending = append(s.pending, s.model.Answer(model.Answer{
		Key: k.name, Payload: payload, X: x, Settled: settled, Triggered: triggered,
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
// says it is busy, as a careful client does: the profile's in-flight
// status (unless the profile answers a mismatch with the same status and
// one is possible), or any answer asking to retry after a while.
func (s *sequence) settle(k *poolKey, payload, step string) []history.Exchange {
	e, prof := s.r.env, s.r.env.Target.Profile
	ambiguous := prof.InFlight == prof.Mismatch && s.model.MayMismatch(k.name, payload)
	// A key answered before a restart has nothing in flight: its "in
	// flight" is judged at once (model.Durable), not waited out.
	durable := s.model.Durable(k.name)
	busy := func(x history.Exchange) bool {
		return !durable && (x.Headers["Retry-After"] != "" || (x.Status == prof.InFlight && !ambiguous))
	}
	wait := e.Target.InProgressTimeout + e.Settings.RequestTimeout
	if at, crashed := s.crashedAt[k.name]; crashed {
		// As S5b: the claim the crash abandoned blocks the key until the
		// in-progress timeout; a retry after it must complete.
		wait = time.Until(at.Add(e.Target.InProgressTimeout + harness.SettleMargin))
	}
	xs := e.SendUntil(k.in(s.r.ctx), s.h, harness.Attempt{
		Step: step, Lane: e.Clean, Key: k.key, Body: k.bodies[payload], Variant: payload,
		Pause: s.turn.pause,
	}, wait, busy)
	s.r.ledger.resend(len(xs) - 1) // the first was paid for by afford
	for i, x := range xs {
		s.judge(k, payload, x, i == len(xs)-1, false)
	}
	return xs
}

// observe reads the oracle for one key and keeps the reading.
func (s *sequence) observe(name, when string) (check.Reading, error) {
	k := s.keys[name]
	obs, err := s.r.env.Observe(k.in(s.r.ctx), k.marker)
	if err != nil {
		return check.Reading{}, fmt.Errorf("oracle: %w", err)
	}
	r := s.r.env.Reading(k.marker, name+" "+when, obs)
	s.counts[name], s.readings[name] = obs.Count, r
	return r, nil
}

// stop ends the sequence as a counterexample and returns the failure
// message. rapid compares it between runs, so it names the step and the
// broken rule only, never ids or counts, which differ from run to run.
func (s *sequence) stop(vs []check.Violation) string {
	vs = merged(vs)
	st := &s.steps[len(s.steps)-1]
	for _, v := range vs {
		st.Broken = append(st.Broken, v.What)
	}
	s.failed = vs
	msg := fmt.Sprintf("step %d (%s): %s", st.N, st.Action, vs[0].What)
	s.r.keep(s, msg)
	return msg
}

// merged folds violations that differ only in the exchanges showing them
// (every answer of a burst breaking the same rule) into one.
func merged(vs []check.Violation) []check.Violation {
	var out []check.Violation
	for _, v := range vs {
		i := slices.IndexFunc(out, func(o check.Violation) bool {
			return o.What == v.What && o.Expected == v.Expected && o.Observed == v.Observed
		})
		if i < 0 {
			out = append(out, v)
			continue
		}
		out[i].Seqs = append(slices.Clone(out[i].Seqs), v.Seqs...)
	}
	return out
}
