package property

import (
	"context"
	"fmt"
	"slices"

	"pgregory.net/rapid"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/harness/model"
	"github.com/idemspec/idemspec/targets"
)

// MaxBurst bounds a property burst; shrinking brings it down to 2.
const MaxBurst = 8

// action is one thing the properties can do to the target. rapid draws
// actions uniformly by name, so each entry is as likely as any other.
type action struct {
	name string
	// unsupported says why the target cannot take the action ("": it
	// can); nil means every target can. Capabilities a target may lack (a
	// look-up path, a fail trigger, a required key, a restart hook) are
	// checked here, so the action is never drawn against a target without
	// them, and the report says why.
	unsupported func(*harness.Env) string
	// draw picks the action's arguments. It never touches the target, so
	// a drawn action can wait for its turn (see memo).
	draw func(t *rapid.T) planned
	// run takes the action, filling in the step; an error is the
	// harness's, not the target's.
	run func(s *sequence, st *history.Step, k *poolKey, p planned) error
}

// actionCatalogue is every action the properties know.
var actionCatalogue = []action{
	{name: "submit", draw: drawKeyPayload, run: (*sequence).submit},
	{name: "submit-lost", draw: drawKeyPayload, run: (*sequence).submitLost},
	{name: "burst", draw: drawBurst, run: (*sequence).burst},
	{name: "lookup", unsupported: lacks(func(e *harness.Env) bool { return e.Target.LookupPath != "" }, "no look-up path"),
		draw: drawKey, run: (*sequence).lookup},
	{name: "variation", draw: drawVariation, run: (*sequence).variation},
	{name: "submit-failing", unsupported: lacks(func(e *harness.Env) bool { return e.Target.FailTrigger != nil }, "no fail trigger"),
		draw: drawKeyPayload, run: (*sequence).submitFailing},
	{name: "keyless", unsupported: lacks(func(e *harness.Env) bool { return e.Target.Key.Required }, "the key is not required"),
		draw: drawKeyless, run: (*sequence).keyless},
	// Two key headers is a malformed key of its own, drawn as often as
	// the other five together.
	{name: "malformed-key", draw: drawMalformedKey, run: (*sequence).malformedKey},
	{name: "two-key-headers", unsupported: lacks(func(e *harness.Env) bool { return e.Target.Key.InHeader() }, "the key travels in no header"),
		draw: drawTwoKeyHeaders, run: (*sequence).malformedKey},
	{name: "other-tenant", unsupported: lacks(func(e *harness.Env) bool { return twinTenant(e.Target) != nil },
		"no second tenant, or an oracle that lists no ids"), draw: drawTwin, run: (*sequence).submit},
	{name: "restart", unsupported: func(e *harness.Env) string { return e.Target.CannotRestart() },
		draw: drawKeyPayload, run: (*sequence).restart},
	{name: "crash", unsupported: crashUnsupported, draw: drawKeyPayload, run: (*sequence).crash},
}

// lacks is an unsupported func for a capability: reason when has fails.
func lacks(has func(*harness.Env) bool, reason string) func(*harness.Env) string {
	return func(e *harness.Env) string {
		if has(e) {
			return ""
		}
		return reason
	}
}

// crashUnsupported says why crashes are not drawn: the target cannot be
// crashed, or a crashed request would block its key for longer than the
// search may wait (S5b reports that).
func crashUnsupported(e *harness.Env) string {
	if why := e.Target.CannotCrash(); why != "" {
		return why
	}
	if e.BlockedTooLong() {
		return fmt.Sprintf("the target declares an in-progress timeout of %s: a crashed request would block its key longer than idemspec waits (%s); S5b reports it",
			e.Target.InProgressTimeout, targets.MaxWait)
	}
	return ""
}

// availableActions is the catalogue filtered by what the target supports.
func availableActions(e *harness.Env) []action {
	var out []action
	for _, a := range actionCatalogue {
		if a.unsupported == nil || a.unsupported(e) == "" {
			out = append(out, a)
		}
	}
	return out
}

// unsupportedActions names the actions the target cannot take, and why.
func unsupportedActions(e *harness.Env) []string {
	var out []string
	for _, a := range actionCatalogue {
		if a.unsupported != nil {
			if why := a.unsupported(e); why != "" {
				out = append(out, a.name+" ("+why+")")
			}
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

// drawTwin picks a pool key's twin: its key and bytes sent as another
// tenant.
func drawTwin(t *rapid.T) planned {
	p := drawKeyPayload(t)
	p.key = twinName(p.key)
	return p
}

// twinName is the name of a pool key's twin.
func twinName(name string) string { return name + "@t2" }

// twinTenant is the tenant the twins are sent as: the first one whose
// credentials differ from the target's own headers (as the same
// credentials, a twin would be the same client replaying its own key).
// A twin carries its pool key's marker, so a view that is not scoped by
// tenant (an admin list, a database) shows both keys' resources under
// it; the model attributes each listed id to the key whose answers named
// it (model.Twin). That needs ids: twins are drawn only where the oracle
// lists them, through the API, never where it only counts.
func twinTenant(t *targets.Target) *targets.Tenant {
	if k := t.Oracle.Kind(); k != "list" && k != "lookup" {
		return nil
	}
	for i, tn := range t.Tenants {
		same := true
		for name, v := range tn.Headers {
			if !slices.Equal(t.Headers.Values(name), v) {
				same = false
			}
		}
		if !same {
			return &t.Tenants[i]
		}
	}
	return nil
}

func drawBurst(t *rapid.T) planned {
	p := drawKeyPayload(t)
	p.n = rapid.IntRange(2, MaxBurst).Draw(t, "n")
	return p
}

func drawVariation(t *rapid.T) planned {
	p := drawKeyPayload(t)
	p.n = rapid.IntRange(0, len(harness.SameRequestVariations())-1).Draw(t, "variation")
	return p
}

func drawKeyless(t *rapid.T) planned {
	return planned{key: model.NoKey, payload: rapid.SampledFrom(payloads).Draw(t, "payload")}
}

func drawMalformedKey(t *rapid.T) planned {
	return planned{key: model.OddKeys, payload: payloads[0], n: rapid.IntRange(0, malformedKeyCases-2).Draw(t, "case")}
}

func drawTwoKeyHeaders(*rapid.T) planned {
	return planned{key: model.OddKeys, payload: payloads[0], n: malformedKeyCases - 1}
}

// submit sends one request and waits out "in flight" answers.
func (s *sequence) submit(st *history.Step, k *poolKey, p planned) error {
	st.Action, st.Expected = "submit", s.model.Expect(k.name, p.payload)
	if k.tenant != nil {
		st.Action = "submit as tenant " + k.tenant.Name
		st.Expected = "a resource of its own or a refusal, never another key's"
	}
	finish(st, s.settle(k, p.payload, fmt.Sprintf("#%d submit %s %s", st.N, k.name, p.payload)))
	return nil
}

// submitLost sends one request whose answer is lost after the server
// finished. Where the model says a correct server will create the key's
// resource, the answer is swallowed (ResponseLoss) and the client gives
// up once the oracle shows the commit, as S2 does. Elsewhere no commit
// need follow (the key has its resource, or another payload or a stored
// failure may hold it), so the answer is cut by a reset as it starts
// (ResetPeer): the server has answered, the client hears nothing.
func (s *sequence) submitLost(st *history.Step, k *poolKey, p planned) error {
	e := s.r.env
	var fault harness.Fault = harness.ResetPeer{}
	if _, crashed := s.crashedAt[k.name]; !crashed && s.counts[k.name] == 0 && s.model.WillCreate(k.name, p.payload) {
		fault = harness.ResponseLoss{}
	}
	st.Action, st.Fault, st.Expected = "submit, answer lost", fault.Name(), s.model.Expect(k.name, p.payload)
	// A fault is the whole lane's: one lost answer at a time.
	defer s.r.pool.holdFaulty()()
	remove, err := e.Faulty.Apply(fault)
	if err != nil {
		return err
	}
	defer remove()
	a := harness.Attempt{Step: fmt.Sprintf("#%d submit %s %s (answer lost)", st.N, k.name, p.payload),
		Lane: e.Faulty, Key: k.key, Body: k.bodies[p.payload], Variant: p.payload}
	var x history.Exchange
	if _, swallowed := fault.(harness.ResponseLoss); swallowed {
		s.swallowed = true
		s.r.pool.swallow(s)
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
	s.judge(k, p.payload, x, false, false)
	finish(st, []history.Exchange{x})
	return nil
}

// burst releases n identical requests together (harness.Burst): the one
// action that opens a check-then-insert race window.
func (s *sequence) burst(st *history.Step, k *poolKey, p planned) error {
	st.Action, st.Expected = fmt.Sprintf("burst of %d", p.n), s.model.Expect(k.name, p.payload)
	if s.model.Settled(k.name) == 0 && s.counts[k.name] == 0 {
		s.r.freshBursts++
	}
	e := s.r.env
	// Spread: with several instances behind the target, the burst's
	// connections are dealt across them, so the instances race (S4).
	b, xs, err := e.Burst(s.r.ctx, s.h, harness.BurstSpec{
		Step: fmt.Sprintf("#%d burst %s %s", st.N, k.name, p.payload), Lane: e.Clean, Spread: e.CleanLanes(),
		Key: k.key, Body: k.bodies[p.payload], Variant: p.payload, Size: p.n,
	})
	if err != nil {
		return err
	}
	s.bursts = append(s.bursts, b)
	for _, x := range xs {
		s.judge(k, p.payload, x, false, false)
	}
	finish(st, xs)
	return nil
}

// lookup asks the target what it knows about a key.
func (s *sequence) lookup(st *history.Step, k *poolKey, _ planned) error {
	st.Action, st.Expected = "lookup", s.model.ExpectLookup(k.name)
	x := s.r.env.Lookup(s.r.ctx, s.h, fmt.Sprintf("#%d lookup %s", st.N, k.name), k.key)
	s.pending = append(s.pending, s.model.Lookup(model.Lookup{Key: k.name, X: x})...)
	finish(st, []history.Exchange{x})
	return nil
}
