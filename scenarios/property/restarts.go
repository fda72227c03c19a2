package property

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"time"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/history"
)

// The actions on the target's process: a graceful restart, and a crash
// in the middle of a request.

// restart sends a request, restarts the target gracefully the moment
// its answer arrives, and sends the same request again. A correct server
// keeps every key's record and resource, so the second answer repeats
// the first. The restart is aimed right after an answer because that is
// when a server that stores the key's record after answering (a hook on
// the send) loses it: the key stays "in flight" across the restart, and
// the retry is refused, then executed again.
func (s *sequence) restart(st *history.Step, k *poolKey, p planned) error {
	st.Action = "submit, restart right after the answer, submit again"
	st.Expected = s.model.Expect(k.name, p.payload) + "; the same again after the restart"
	xs := s.settle(k, p.payload, fmt.Sprintf("#%d submit %s %s (then restart)", st.N, k.name, p.payload))
	// The pool's other sequences ended their steps during the request
	// (see searchPool.gather); the restart waits for any still under way.
	if err := s.turn.whole(); err != nil {
		return err
	}
	rec, err := s.r.env.Restart(s.r.ctx)
	s.restarts = append(s.restarts, rec)
	if err != nil {
		return err
	}
	s.model.Restarted()
	s.backAlongside()
	xs = append(xs, s.settle(k, p.payload, fmt.Sprintf("#%d submit %s %s (after the restart)", st.N, k.name, p.payload))...)
	finish(st, xs)
	st.Observed += fmt.Sprintf("; restarted %s after the answer, down for %s",
		rec.At.Sub(answered(xs[0])).Round(time.Microsecond), rec.Down.Round(time.Millisecond))
	return nil
}

// backAlongside ends the part of a restart or crash step that needs the
// whole target: the pool's other sequences learn that it restarted, and
// take their steps again beside the rest of this one (its requests and
// oracle reads touch its own keys only).
func (s *sequence) backAlongside() {
	s.r.pool.restarted(s)
	s.turn.share()
}

// answered is when an exchange's answer arrived.
func answered(x history.Exchange) time.Time { return x.Start.Add(x.Duration) }

// crash sends one request and kills the target while it is being
// processed (harness.CrashMidRequest), then starts it again. The crashed
// request may or may not have taken effect; its key may stay claimed
// until the target's in-progress timeout, after which a retry completes.
func (s *sequence) crash(st *history.Step, k *poolKey, p planned) error {
	e := s.r.env
	st.Action, st.Fault = "submit, crash mid-request", "crash"
	st.Expected = s.model.Expect(k.name, p.payload) + ", or no answer (the crash)"
	a := harness.Attempt{Step: fmt.Sprintf("#%d submit %s %s (crashed)", st.N, k.name, p.payload),
		Lane: e.Clean, Key: k.key, Body: k.bodies[p.payload], Variant: p.payload}
	x, rec, err := e.CrashMidRequest(s.r.ctx, s.h, a, s.crashRand())
	s.restarts = append(s.restarts, rec)
	// A crash that came after the answer is still a crash of the target
	// (a restart after the work), judged as such; one meant to land in
	// the request's work (s.landed: see hold) is counted, since a PASS
	// may not rest on it.
	var late *harness.CrashMissed
	if errors.As(err, &late) {
		err = nil
	}
	if err != nil {
		return err
	}
	if s.landed && s.r.best == nil {
		s.r.ledger.crashed(late == nil, late != nil && late.Drawn)
		if late != nil && s.r.missed == "" {
			s.r.missed = late.Error()
		}
	}
	s.crashedAt[k.name], s.crashed[k.name] = rec.At, p.payload
	s.judge(k, p.payload, x, false, false)
	s.model.Restarted()
	s.backAlongside()
	finish(st, []history.Exchange{x})
	st.Observed += "; crashed " + rec.Point
	return nil
}

// crashRand draws the crash delay on targets without crash points. It is
// seeded from the actions taken so far, not drawn by rapid: the same
// sequence crashes at the same delay, and shrinking does not spend runs
// (each waits out an in-progress timeout) minimising a delay the fakes
// never use.
func (s *sequence) crashRand() *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(planKey(s.plan[:s.done])))
	return rand.New(rand.NewPCG(h.Sum64(), 0xc4a5))
}
