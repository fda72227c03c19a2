package property

import (
	"fmt"
	"maps"
	"slices"

	"pgregory.net/rapid"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/harness/model"
)

// conclude ends a sequence: the actions still planned are taken, then
// every key is reconciled. Failures are raised on one line, as in
// invariant.
func (s *sequence) conclude(t *rapid.T) {
	if msg := s.settleAll(t); msg != "" {
		t.Fatalf("%s", msg)
	}
}

func (s *sequence) settleAll(t *rapid.T) string {
	if s.r.best != nil {
		if msg, ok := s.r.memo.failedAtEnd(s.plan); ok {
			s.r.replayed++
			return msg
		}
		if s.r.memo.passed(s.plan) {
			s.r.replayed++
			return ""
		}
	}
	if msg := s.take(t); msg != "" {
		return msg
	}
	if len(s.steps) == 0 {
		return ""
	}
	if s.r.pool.halted(s.r) {
		return ""
	}
	fs, err := s.reconcileInTurn()
	if err != nil {
		s.r.fail(t, err)
	}
	if vs := s.sort(fs); len(vs) > 0 {
		return s.stop(vs)
	}
	if s.r.best != nil {
		s.r.memo.pass(s.plan)
	}
	return ""
}

// reconcileInTurn reconciles between the pool's restarts and crashes.
func (s *sequence) reconcileInTurn() ([]model.Finding, error) {
	t, err := s.r.pool.enter(s.r.ctx, false)
	if err != nil {
		return nil, err
	}
	s.turn = t
	defer func() { t.leave(); s.turn = nil }()
	fs, err := s.reconcile()
	if err == nil {
		err = t.lost()
	}
	return fs, err
}

// reconciled says whether the sequence got as far as the reconciliation.
func (s *sequence) reconciled() bool {
	return len(s.steps) > 0 && s.steps[len(s.steps)-1].Action == "reconcile"
}

// reconcile settles every key a lost answer left open by resending the
// lost payload, then holds the oracle's final counts to what was
// acknowledged or found.
func (s *sequence) reconcile() ([]model.Finding, error) {
	s.steps = append(s.steps, history.Step{N: len(s.steps) + 1, Action: "reconcile",
		Expected: "every key acknowledged or found has one resource, every other key none"})
	st := &s.steps[len(s.steps)-1]
	s.pending = nil
	var xs []history.Exchange
	for _, p := range s.toReconcile() {
		if !s.r.afford(1) {
			continue // still open: the final count may go either way
		}
		xs = append(xs, s.settle(s.keys[p.Key], p.Payload, fmt.Sprintf("#%d reconcile %s", st.N, p.Key))...)
	}
	finish(st, xs)
	fs := s.pending
	total, want, open := 0, 0, 0
	for _, name := range s.touched {
		obs, err := s.observe(name, "after the reconciliation")
		if err != nil {
			return nil, err
		}
		fs = append(fs, s.model.Read(model.Reading{Key: name, Count: obs.Count, IDs: obs.IDs}, true)...)
		if !slices.Contains(keyNames, name) {
			continue
		}
		total += obs.Count
		if n := s.model.Settled(name); n < 0 {
			open++
		} else {
			want += n
		}
	}
	if st.Observed != "" {
		st.Observed += "; "
	}
	st.Observed += fmt.Sprintf("oracle counts %d resources; %d keys acknowledged or found", total, want)
	if open > 0 {
		st.Observed += fmt.Sprintf(", %d still open", open)
	}
	return fs, s.r.ctx.Err()
}

// toReconcile is every key a lost answer left open, every key found
// bound whose resource nothing showed yet (its request may still be
// running: a mismatch refused while it ran binds the key), and every key
// a crash hit (retried, as S5b does, once the claim it abandoned has
// expired), each with the payload to resend.
func (s *sequence) toReconcile() []model.Pending {
	out := s.model.Unsettled()
	add := func(p model.Pending) {
		if !slices.ContainsFunc(out, func(q model.Pending) bool { return q.Key == p.Key }) {
			out = append(out, p)
		}
	}
	for _, p := range s.model.Unseen() {
		add(p)
	}
	for _, name := range slices.Sorted(maps.Keys(s.crashed)) {
		add(model.Pending{Key: name, Payload: s.crashed[name]})
	}
	return out
}

// evidence is a counterexample as the report shows it.
func (s *sequence) evidence() check.Evidence {
	ev := check.Evidence{Steps: s.steps, History: s.h.Exchanges(), Bursts: s.bursts, Restarts: s.restarts}
	for _, name := range s.touched {
		if r, ok := s.readings[name]; ok {
			ev.Readings = append(ev.Readings, r)
		}
	}
	return ev
}
