package scenarios

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net/http"
	"time"

	"pgregory.net/rapid"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/harness/model"
)

// maxBurst bounds a property burst; shrinking brings it down to 2.
const maxBurst = 8

// action is one thing the properties can do to the target. rapid draws
// actions uniformly by name, so each entry is as likely as any other.
type action struct {
	name string
	// supported says whether the target can take the action; nil means
	// every target can. Capabilities a target may lack (a look-up path,
	// a fail trigger, a required key, a restart hook) are checked here,
	// so the action is simply never drawn against a target without them.
	supported func(*harness.Env) bool
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
	{name: "lookup", supported: func(e *harness.Env) bool { return e.Target.LookupPath != "" },
		draw: drawKey, run: (*sequence).lookup},
	{name: "variation", draw: drawVariation, run: (*sequence).variation},
	{name: "submit-failing", supported: func(e *harness.Env) bool { return e.Target.FailTrigger != nil },
		draw: drawKeyPayload, run: (*sequence).submitFailing},
	{name: "keyless", supported: func(e *harness.Env) bool { return e.Target.Key.Required },
		draw: drawKeyless, run: (*sequence).keyless},
	// Two key headers is a malformed key of its own, drawn as often as
	// the other five together.
	{name: "malformed-key", draw: drawMalformedKey, run: (*sequence).malformedKey},
	{name: "two-key-headers", draw: drawTwoKeyHeaders, run: (*sequence).malformedKey},
	{name: "restart", supported: func(e *harness.Env) bool { return e.Target.CannotRestart() == "" },
		draw: func(*rapid.T) planned { return planned{} }, run: (*sequence).restart},
	{name: "crash", supported: func(e *harness.Env) bool { return e.Target.CannotCrash() == "" },
		draw: drawKeyPayload, run: (*sequence).crash},
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

func drawVariation(t *rapid.T) planned {
	p := drawKeyPayload(t)
	p.n = rapid.IntRange(0, len(sameRequestVariations())-1).Draw(t, "variation")
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
	b, xs, err := e.Burst(s.r.ctx, s.h, harness.BurstSpec{
		Step: fmt.Sprintf("#%d burst %s %s", st.N, k.name, p.payload), Lane: e.Clean,
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

// variation submits a request and, once it succeeded, the same request in
// another form (another query string, an added header, reordered or
// reindented JSON): the target must replay it or refuse it, never run it
// again.
func (s *sequence) variation(st *history.Step, k *poolKey, p planned) error {
	v := sameRequestVariations()[p.n]
	st.Action, st.Expected = "submit, then "+v.name, s.model.Expect(k.name, p.payload)
	xs := s.settle(k, p.payload, fmt.Sprintf("#%d submit %s %s", st.N, k.name, p.payload))
	if last := xs[len(xs)-1]; last.Is2xx() {
		e := s.r.env
		a := harness.Attempt{Step: fmt.Sprintf("#%d %s %s: %s", st.N, k.name, p.payload, v.name), Lane: e.Clean,
			Key: k.key, Body: k.bodies[p.payload], Variant: p.payload}
		na, err := v.vary(e, &a, k.marker)
		if err != nil {
			return err
		}
		if na == "" && s.r.afford(1) {
			st.Expected += "; then " + s.model.ExpectVariation(k.name)
			x := e.Send(s.r.ctx, s.h, a)
			s.pending = append(s.pending, s.model.Variation(k.name, v.name, x)...)
			xs = append(xs, x)
		}
	}
	finish(st, xs)
	return nil
}

// submitFailing sends one request carrying the target's fail trigger: it
// fails with a 5xx before it takes effect, and must leave nothing behind.
func (s *sequence) submitFailing(st *history.Step, k *poolKey, p planned) error {
	e := s.r.env
	trigger := e.Target.FailTrigger
	st.Action, st.Fault = "submit, made to fail", "fail trigger "+trigger.Header
	st.Expected = s.model.Expect(k.name, p.payload) + " (a 5xx if the trigger strikes: nothing created)"
	x := e.Send(s.r.ctx, s.h, harness.Attempt{
		Step: fmt.Sprintf("#%d submit %s %s (made to fail)", st.N, k.name, p.payload), Lane: e.Clean,
		Key: k.key, Body: k.bodies[p.payload], Variant: p.payload,
		Header: http.Header{http.CanonicalHeaderKey(trigger.Header): {trigger.Value}},
	})
	s.judge(k, p.payload, x, false, true)
	finish(st, []history.Exchange{x})
	return nil
}

// keyless sends a create without the key the target requires.
func (s *sequence) keyless(st *history.Step, k *poolKey, p planned) error {
	st.Action, st.Expected = "submit without a key", s.model.ExpectKeyless()
	x := s.r.env.Send(s.r.ctx, s.h, harness.Attempt{
		Step: fmt.Sprintf("#%d submit %s without a key", st.N, p.payload), Lane: s.r.env.Clean,
		Body: k.bodies[p.payload], Variant: p.payload,
	})
	s.pending = append(s.pending, s.model.Keyless(x)...)
	finish(st, []history.Exchange{x})
	return nil
}

// malformedKeyCases is how many malformed keys malformedKeys makes, the
// duplicated header last (a test holds them to it).
const malformedKeyCases = 6

// malformedKey sends a create with a malformed key (or two key headers),
// made from fresh keys so that an accepted one binds nothing in the pool.
func (s *sequence) malformedKey(st *history.Step, k *poolKey, p planned) error {
	e := s.r.env
	c := malformedKeys(e)[p.n]
	inFormat := c.inFormat(e)
	st.Action, st.Payload, st.Expected = "submit with a malformed key ("+c.name+")", "", s.model.ExpectOddKey(inFormat)
	x := e.Send(s.r.ctx, s.h, harness.Attempt{
		Step: fmt.Sprintf("#%d key: %s", st.N, c.name), Lane: e.Clean, Key: c.values[0],
		Body: k.bodies[p.payload], Variant: p.payload,
		Header: http.Header{http.CanonicalHeaderKey(e.Target.Key.Header): c.values},
	})
	s.pending = append(s.pending, s.model.OddKey(model.OddKey{Case: c.name, InFormat: inFormat, X: x})...)
	finish(st, []history.Exchange{x})
	return nil
}

// restart restarts the target gracefully: a correct server keeps every
// key's record and resource.
func (s *sequence) restart(st *history.Step, _ *poolKey, _ planned) error {
	st.Action, st.Expected = "restart", "every key's record and resource kept"
	rec, err := s.r.env.Restart(s.r.ctx)
	s.restarts = append(s.restarts, rec)
	if err != nil {
		return err
	}
	st.Outcome, st.Observed = "restarted", fmt.Sprintf("down for %s", rec.Down.Round(time.Millisecond))
	return nil
}

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
	if err != nil {
		return err
	}
	s.crashedAt[k.name], s.crashed[k.name] = rec.At, p.payload
	s.judge(k, p.payload, x, false, false)
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
