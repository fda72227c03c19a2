package property

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/harness/model"
)

// The actions that send a request in another form than a plain submit:
// a variation of it, one made to fail, one without a key, one with a
// malformed key.

// variation submits a request and, once it succeeded, the same request in
// each other form (another query string, an added header, reordered or
// reindented JSON), starting from the drawn one: the target must replay
// each or refuse it, never run it again. Every form is sent, not one
// drawn, so that a sequence with one variation step probes the whole
// fingerprint (a bug in one form is otherwise found in one step of four);
// the step stops at the first form that breaks a rule.
func (s *sequence) variation(st *history.Step, k *poolKey, p planned) error {
	vars := harness.SameRequestVariations()
	st.Action, st.Expected = "submit, then the same request in other forms", s.model.Expect(k.name, p.payload)
	xs := s.settle(k, p.payload, fmt.Sprintf("#%d submit %s %s", st.N, k.name, p.payload))
	if last := xs[len(xs)-1]; last.Is2xx() {
		st.Expected += "; then, to each form, " + s.model.ExpectVariation(k.name)
		e := s.r.env
		var forms []string
		for i := range vars {
			v := vars[(p.n+i)%len(vars)]
			a := harness.Attempt{Step: fmt.Sprintf("#%d %s %s: %s", st.N, k.name, p.payload, v.Name), Lane: e.Clean,
				Key: k.key, Body: k.bodies[p.payload], Variant: p.payload}
			na, err := v.Vary(e, &a, k.marker)
			if err != nil {
				return err
			}
			if na != "" || !s.r.afford(1) {
				continue
			}
			forms = append(forms, v.Name)
			x := e.Send(s.r.ctx, s.h, a)
			xs = append(xs, x)
			fs := s.model.Variation(k.name, v.Name, x)
			s.pending = append(s.pending, fs...)
			if len(fs) > 0 {
				break
			}
		}
		if len(forms) > 0 {
			st.Action = "submit, then " + strings.Join(forms, ", ")
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

// malformedKeyCases is how many malformed keys harness.MalformedKeys
// makes for a key in a header, the duplicated header last (a test holds
// them to it); elsewhere there is no duplicated header.
const malformedKeyCases = 6

// malformedKey sends a create with a malformed key (or two key headers),
// made from fresh keys so that an accepted one binds nothing in the pool.
func (s *sequence) malformedKey(st *history.Step, k *poolKey, p planned) error {
	e := s.r.env
	c := harness.MalformedKeys(e)[p.n]
	inFormat := c.InFormat(e)
	st.Action, st.Payload, st.Expected = "submit with a malformed key ("+c.Name+")", "", s.model.ExpectOddKey(inFormat, c.May)
	x := e.Send(s.r.ctx, s.h, harness.Attempt{
		Step: fmt.Sprintf("#%d key: %s", st.N, c.Name), Lane: e.Clean, Key: c.Values[0], Keys: c.Values,
		Body: k.bodies[p.payload], Variant: p.payload, Fresh: true, // a drop is then this key's answer
	})
	s.pending = append(s.pending, s.model.OddKey(model.OddKey{Case: c.Name, InFormat: inFormat, May: c.May, X: x})...)
	if c.May != "" && x.Outcome == history.OK && x.Is2xx() {
		s.r.mayAccepted[mayCase{c.Name, c.May}]++ // not charged: the notes say so
	}
	finish(st, []history.Exchange{x})
	return nil
}
