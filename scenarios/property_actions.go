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
	// a restart hook) are checked here, so the action is simply never
	// drawn against a target without them.
	supported func(*harness.Env) bool
	// draw picks the action's arguments. It never touches the target, so
	// a drawn action can wait for its turn (see memo).
	draw func(t *rapid.T) planned
	// run takes the action, filling in the step; an error is the
	// harness's, not the target's.
	run func(s *sequence, st *history.Step, k *poolKey, p planned) error
}

// actionCatalogue is every action the property knows.
var actionCatalogue = []action{
	{name: "submit", draw: drawKeyPayload, run: (*sequence).submit},
	{name: "submit-lost", draw: drawKeyPayload, run: (*sequence).submitLost},
	{name: "burst", draw: drawBurst, run: (*sequence).burst},
	{name: "lookup", supported: func(e *harness.Env) bool { return e.Target.LookupPath != "" },
		draw: drawKey, run: (*sequence).lookup},
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

func drawKey(t *rapid.T) planned {
	return planned{key: rapid.SampledFrom(keyNames).Draw(t, "key")}
}

func drawKeyPayload(t *rapid.T) planned {
	p := drawKey(t)
	p.payload = rapid.SampledFrom(payloads).Draw(t, "payload")
	return p
}

func drawBurst(t *rapid.T) planned {
	p := drawKeyPayload(t)
	p.n = rapid.IntRange(2, maxBurst).Draw(t, "n")
	return p
}

// submit sends one request and waits out "in flight" answers.
func (s *sequence) submit(st *history.Step, k *poolKey, p planned) error {
	st.Action = "submit"
	xs := s.settle(k, p.payload, fmt.Sprintf("#%d submit %s %s", st.N, k.name, p.payload))
	for i, x := range xs {
		s.judge(k, p.payload, x, i == len(xs)-1)
	}
	finish(st, xs)
	return nil
}

// submitLost sends one request whose answer is lost after the server
// finished. On a key the oracle shows no resource for, the answer is
// swallowed (ResponseLoss) and the client gives up once the oracle shows
// the commit, as S2 does. On a key that has its resource no commit will
// follow from a correct server, so the answer is cut by a reset as it
// starts (ResetPeer): the server has answered, the client hears nothing.
func (s *sequence) submitLost(st *history.Step, k *poolKey, p planned) error {
	e := s.r.env
	var fault harness.Fault = harness.ResetPeer{}
	if s.counts[k.name] == 0 {
		fault = harness.ResponseLoss{}
	}
	st.Action, st.Fault = "submit, answer lost", fault.Name()
	remove, err := e.Faulty.Apply(fault)
	if err != nil {
		return err
	}
	defer remove()
	a := harness.Attempt{Step: fmt.Sprintf("#%d submit %s %s (answer lost)", st.N, k.name, p.payload),
		Lane: e.Faulty, Key: k.key, Body: k.bodies[p.payload], Variant: p.payload}
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
	s.judge(k, p.payload, x, false)
	finish(st, []history.Exchange{x})
	return nil
}

// burst releases n identical requests together (harness.Burst): the one
// action that opens a check-then-insert race window.
func (s *sequence) burst(st *history.Step, k *poolKey, p planned) error {
	st.Action = fmt.Sprintf("burst of %d", p.n)
	if s.model.Settled(k.name) == 0 && s.counts[k.name] == 0 {
		s.r.freshBursts++
	}
	e := s.r.env
	b, xs, err := e.Burst(s.r.ctx, s.h, harness.BurstSpec{
		Step: fmt.Sprintf("#%d burst %s %s", st.N, k.name, p.payload), Lane: e.Clean,
		Key: k.key, Body: k.bodies[p.payload], Variant: p.payload, Size: p.n,
	})
	if err != nil {
		return err
	}
	s.bursts = append(s.bursts, b)
	for _, x := range xs {
		s.judge(k, p.payload, x, false)
	}
	finish(st, xs)
	return nil
}

// lookup asks the target what it knows about a key.
func (s *sequence) lookup(st *history.Step, k *poolKey, _ planned) error {
	st.Action = "lookup"
	x := s.r.env.Lookup(s.r.ctx, s.h, fmt.Sprintf("#%d lookup %s", st.N, k.name), k.key)
	s.pending = append(s.pending, s.model.Lookup(lookupOf(k.name, x))...)
	finish(st, []history.Exchange{x})
	return nil
}
