package scenarios

import (
	"context"
	"fmt"

	"pgregory.net/rapid"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/history"
)

// maxBurst bounds a property burst; shrinking brings it down to 2.
const maxBurst = 8

// action is one thing the property can do to the target. rapid draws
// actions uniformly by name, so each entry is as likely as any other.
type action struct {
	name string
	// supported says whether the target can take the action; nil means
	// every target can. Capabilities a target may lack (a look-up path,
	// a restart hook) are found here, so the action is simply never
	// drawn against a target without them.
	supported func(*harness.Env) bool
	run       func(s *sequence, t *rapid.T)
}

// actionCatalogue is every action the property knows.
var actionCatalogue = []action{
	{name: "submit", run: (*sequence).submit},
	{name: "submit-lost", run: (*sequence).submitLost},
	{name: "burst", run: (*sequence).burst},
	{name: "lookup", supported: func(e *harness.Env) bool { return e.Target.LookupPath != "" }, run: (*sequence).lookup},
}

// availableActions is the catalogue filtered by what the target supports.
func availableActions(e *harness.Env) []action {
	var out []action
	for _, a := range actionCatalogue {
		if a.supported == nil || a.supported(e) {
			out = append(out, a)
		}
	}
	return out
}

// unsupportedActions names the actions the target cannot take.
func unsupportedActions(e *harness.Env) []string {
	var out []string
	for _, a := range actionCatalogue {
		if a.supported != nil && !a.supported(e) {
			out = append(out, a.name)
		}
	}
	return out
}

// submit sends one request and waits out "in flight" answers.
func (s *sequence) submit(t *rapid.T) {
	k, p := s.drawKey(t), drawPayload(t)
	if !s.r.afford(1) {
		return
	}
	st := s.begin("submit", k, p, "")
	xs := s.settle(k, p, fmt.Sprintf("#%d submit %s %s", st.N, k.name, p))
	for i, x := range xs {
		s.judge(k, p, x, i == len(xs)-1)
	}
	finish(st, xs)
}

// submitLost sends one request whose answer is lost after the server
// finished. On a key the oracle shows no resource for, the answer is
// swallowed (ResponseLoss) and the client gives up once the oracle shows
// the commit, as S2 does. On a key that has its resource no commit will
// follow from a correct server, so the answer is cut by a reset as it
// starts (ResetPeer): the server has answered, the client hears nothing.
func (s *sequence) submitLost(t *rapid.T) {
	k, p := s.drawKey(t), drawPayload(t)
	if !s.r.afford(1) {
		return
	}
	e := s.r.env
	var fault harness.Fault = harness.ResetPeer{}
	if s.counts[k.name] == 0 {
		fault = harness.ResponseLoss{}
	}
	st := s.begin("submit, answer lost", k, p, fault.Name())
	remove, err := e.Faulty.Apply(fault)
	if err != nil {
		s.r.fail(t, err)
	}
	defer remove()
	a := harness.Attempt{Step: fmt.Sprintf("#%d submit %s %s (answer lost)", st.N, k.name, p),
		Lane: e.Faulty, Key: k.key, Body: k.bodies[p], Variant: p}
	var x history.Exchange
	if _, swallowed := fault.(harness.ResponseLoss); swallowed {
		committed := make(chan struct{})
		wait, stop := context.WithCancel(s.r.ctx)
		go func() {
			defer close(committed)
			e.AwaitCommit(wait, k.marker)
		}()
		a.Cancel, a.Timeout = committed, e.Settings.CommitWait+e.Settings.RequestTimeout
		x = e.Send(s.r.ctx, s.h, a)
		stop()
		<-committed
	} else {
		x = e.Send(s.r.ctx, s.h, a)
	}
	s.judge(k, p, x, false)
	finish(st, []history.Exchange{x})
}

// burst releases n identical requests together (harness.Burst): the one
// action that opens a check-then-insert race window.
func (s *sequence) burst(t *rapid.T) {
	k, p := s.drawKey(t), drawPayload(t)
	n := rapid.IntRange(2, maxBurst).Draw(t, "n")
	if !s.r.afford(n) {
		return
	}
	if s.model.Settled(k.name) == 0 && s.counts[k.name] == 0 {
		s.r.freshBursts++
	}
	st := s.begin(fmt.Sprintf("burst of %d", n), k, p, "")
	e := s.r.env
	b, xs, err := e.Burst(s.r.ctx, s.h, harness.BurstSpec{
		Step: fmt.Sprintf("#%d burst %s %s", st.N, k.name, p), Lane: e.Clean, Key: k.key, Body: k.bodies[p], Variant: p, Size: n,
	})
	if err != nil {
		s.r.fail(t, err)
	}
	s.bursts = append(s.bursts, b)
	for _, x := range xs {
		s.judge(k, p, x, false)
	}
	finish(st, xs)
}

// lookup asks the target what it knows about a key.
func (s *sequence) lookup(t *rapid.T) {
	k := s.drawKey(t)
	st := s.begin("lookup", k, "", "")
	x := s.r.env.Lookup(s.r.ctx, s.h, fmt.Sprintf("#%d lookup %s", st.N, k.name), k.key)
	s.pending = append(s.pending, s.model.Lookup(lookupOf(k.name, x))...)
	finish(st, []history.Exchange{x})
}
