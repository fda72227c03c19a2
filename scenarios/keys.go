package scenarios

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
)

// The key checks K1-K6: the key itself, the fingerprint's scope, replay
// fidelity, in-flight duplicates and failed first attempts.
var _ = Describe("keys", func() {
	It(check.K1.Title, labels(check.K1), SpecTimeout(specTimeout), run(check.K1, missingKeyRefused))
	It(check.K1a.Title, labels(check.K1a), SpecTimeout(specTimeout), run(check.K1a, missingKeyStatus))
	It(check.K2.Title, labels(check.K2), SpecTimeout(specTimeout), run(check.K2, oddKeysSurvived))
	It(check.K2a.Title, labels(check.K2a), SpecTimeout(specTimeout), run(check.K2a, oddKeysRefused))
	It(check.K3.Title, labels(check.K3), SpecTimeout(specTimeout), run(check.K3, fingerprintScope))
	It(check.K4.Title, labels(check.K4), SpecTimeout(specTimeout), run(check.K4, replayFidelity))
	It(check.K5.Title, labels(check.K5), SpecTimeout(specTimeout), run(check.K5, inFlightConflict))
	It(check.K6.Title, labels(check.K6), SpecTimeout(specTimeout), run(check.K6, failedFirstAttempt))
})

// K1: a create without the key creates nothing.
func missingKeyRefused(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error) {
	if !e.Target.Key.Required {
		return keyOptional(e, check.K1), nil
	}
	run, err := missingKeyRun(ctx, e, h, ev, check.K1.ID)
	if err != nil {
		return check.Verdict{}, err
	}
	return check.MissingKeyRefused(run), nil
}

// K1a: ... and is refused with the profile's status.
func missingKeyStatus(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error) {
	if !e.Target.Key.Required {
		return keyOptional(e, check.K1a), nil
	}
	run, err := missingKeyRun(ctx, e, h, ev, check.K1a.ID)
	if err != nil {
		return check.Verdict{}, err
	}
	return check.MissingKeyStatus(run), nil
}

func keyOptional(e *harness.Env, c check.Check) check.Verdict {
	return check.Skip(c.ID, fmt.Sprintf("the target does not declare the key required (profile %s): a create without it runs unprotected; set key.required: true to test it", e.Target.Profile.Name))
}

func missingKeyRun(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence, scope string) (check.MissingKeyRun, error) {
	marker := e.NewMarker(scope)
	body, err := e.Body(marker, "100")
	if err != nil {
		return check.MissingKeyRun{}, err
	}
	x := e.Send(ctx, h, harness.Attempt{Step: "create without a key", Lane: e.Clean, Body: body, Variant: "100"})
	r, err := reading(ctx, e, ev, marker, "after the create without a key")
	if err != nil {
		return check.MissingKeyRun{}, err
	}
	return check.MissingKeyRun{Send: x, Reading: r, Want: e.Target.Profile.MissingKey}, nil
}

// K2: malformed keys get no 5xx and no dropped connection.
func oddKeysSurvived(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error) {
	run, err := oddKeyRun(ctx, e, h, ev, check.K2.ID)
	if err != nil {
		return check.Verdict{}, err
	}
	return check.OddKeysSurvived(run), nil
}

// K2a: ... and are refused with a 4xx.
func oddKeysRefused(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error) {
	run, err := oddKeyRun(ctx, e, h, ev, check.K2a.ID)
	if err != nil {
		return check.Verdict{}, err
	}
	return check.OddKeysRefused(run), nil
}

// oddKeyRun sends one create per malformed key.
func oddKeyRun(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence, scope string) (check.OddKeyRun, error) {
	marker := e.NewMarker(scope)
	body, err := e.Body(marker, "100")
	if err != nil {
		return check.OddKeyRun{}, err
	}
	header := http.CanonicalHeaderKey(e.Target.Key.Header)
	var run check.OddKeyRun
	for _, c := range malformedKeys(e) {
		x := e.Send(ctx, h, harness.Attempt{
			Step: "key: " + c.name, Lane: e.Clean, Key: c.values[0], Body: body, Variant: "100",
			Header: http.Header{header: c.values},
		})
		run.Keys = append(run.Keys, check.OddKey{Case: c.name, Send: x, InFormat: c.inFormat(e)})
	}
	run.Reading, err = reading(ctx, e, ev, marker, "after the malformed keys")
	return run, err
}

// malformedKey is a key header that is not a well-formed key: its values
// (two for a duplicated header).
type malformedKey struct {
	name   string
	values []string
}

// inFormat says whether the target's declared format accepts the key
// after all, so that accepting it is no fault.
func (k malformedKey) inFormat(e *harness.Env) bool {
	return len(k.values) == 1 && e.Target.Key.Matches(k.values[0])
}

// malformedKeys are the malformed keys K2, K2a and the property send,
// each made from fresh keys. Leading and trailing whitespace is not among
// them: HTTP strips it, so the target would see a well-formed key.
func malformedKeys(e *harness.Env) []malformedKey {
	good := e.NewKey()
	long := strings.Repeat(good, 1+1024/len(good))
	return []malformedKey{
		{"empty", []string{""}},
		{"256 characters", []string{long[:256]}},
		{"1024 characters", []string{long[:1024]}},
		{"non-ASCII", []string{good[:len(good)-1] + "é"}},
		{"inner whitespace", []string{good[:len(good)/2] + " " + good[len(good)/2+1:]}},
		{"duplicated header", []string{e.NewKey(), e.NewKey()}},
	}
}

// K3: variations of a request under its key.
func fingerprintScope(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error) {
	var vars []check.Variation
	for _, v := range requestVariations {
		key, marker := e.NewKey(), e.NewMarker(check.K3.ID)
		body, err := e.Body(marker, "100")
		if err != nil {
			return check.Verdict{}, err
		}
		original := harness.Attempt{Step: v.name + ": original", Lane: e.Clean, Key: key, Body: body, Variant: "100"}
		variant := original
		variant.Step = v.name + ": variation"
		na, err := v.vary(e, &variant, marker)
		if err != nil {
			return check.Verdict{}, err
		}
		probe := check.Variation{Name: v.name, Changed: v.changed, NotApplicable: na}
		if na == "" {
			probe.Original = e.Send(ctx, h, original)
			probe.Variant = e.Send(ctx, h, variant)
			if probe.Reading, err = reading(ctx, e, ev, marker, "after "+v.name); err != nil {
				return check.Verdict{}, err
			}
		}
		vars = append(vars, probe)
	}
	v, table := check.FingerprintScope(vars, e.Target.Profile.Mismatch)
	ev.Tables = append(ev.Tables, table)
	return v, nil
}

// requestVariation turns a create attempt into a variation of it: the
// payload changed, or the same request in another form (the property
// sends those). vary says why it does not apply to this target, if so.
type requestVariation struct {
	name    string
	changed bool
	vary    func(e *harness.Env, a *harness.Attempt, marker string) (notApplicable string, err error)
}

var requestVariations = []requestVariation{
	{"changed body field", true, func(e *harness.Env, a *harness.Attempt, marker string) (string, error) {
		b, err := e.Body(marker, "200")
		a.Body, a.Variant = b, "200"
		return "", err
	}},
	{"reordered JSON members", false, func(_ *harness.Env, a *harness.Attempt, _ string) (string, error) {
		b, ok := harness.ReorderJSON(a.Body)
		a.Body = b
		return notJSON(ok, "a JSON object with two or more members"), nil
	}},
	{"other whitespace", false, func(_ *harness.Env, a *harness.Attempt, _ string) (string, error) {
		b, ok := harness.Reindent(a.Body)
		a.Body = b
		return notJSON(ok, "JSON"), nil
	}},
	{"an added query parameter", false, func(_ *harness.Env, a *harness.Attempt, _ string) (string, error) {
		a.Query = "idemspec_variation=1"
		return "", nil
	}},
	{"an added header", false, func(_ *harness.Env, a *harness.Attempt, _ string) (string, error) {
		a.Header = http.Header{"X-Idemspec-Variation": {"1"}}
		return "", nil
	}},
}

// sameRequestVariations are the variations that keep the request's
// meaning: a target must treat them as the same request or refuse them.
func sameRequestVariations() []requestVariation {
	var out []requestVariation
	for _, v := range requestVariations {
		if !v.changed {
			out = append(out, v)
		}
	}
	return out
}

func notJSON(ok bool, what string) string {
	if ok {
		return ""
	}
	return "the create body is not " + what
}

// K4: a replay carries what the original carried.
func replayFidelity(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error) {
	key, marker := e.NewKey(), e.NewMarker(check.K4.ID)
	body, err := e.Body(marker, "100")
	if err != nil {
		return check.Verdict{}, err
	}
	a := harness.Attempt{Step: "original", Lane: e.Clean, Key: key, Body: body, Variant: "100"}
	run := check.ReplayRun{Original: e.Send(ctx, h, a), Volatile: e.Target.Volatile, Markers: replayMarkers(e)}
	a.Step = "replay"
	run.Replay = e.Send(ctx, h, a)
	v, notes := check.ReplayFidelity(run)
	ev.Notes = append(ev.Notes, notes...)
	return v, nil
}

// replayMarkers are the headers that may mark a replay, the profile's first.
func replayMarkers(e *harness.Env) []string {
	if p := e.Target.Profile.ReplayHeader; p != "" {
		return append([]string{p}, harness.ReplayMarkers...)
	}
	return harness.ReplayMarkers
}

// maxInFlightBursts bounds K5's bursts. A burst whose duplicates all
// arrive after the first request finished shows nothing about in-flight
// answers (a serializing target looks the same), so K5 bursts again, a
// few times at most, until some duplicate is refused.
const maxInFlightBursts = 3

// K5: duplicates that meet the first request in flight.
func inFlightConflict(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error) {
	run := check.InFlightRun{InFlight: e.Target.Profile.InFlight}
	for i := 1; i <= maxInFlightBursts; i++ {
		key, marker := e.NewKey(), e.NewMarker(check.K5.ID)
		body, err := e.Body(marker, "100")
		if err != nil {
			return check.Verdict{}, err
		}
		b, sends, err := e.Burst(ctx, h, harness.BurstSpec{Step: fmt.Sprintf("burst %d", i), Lane: e.Clean, Key: key, Body: body, Variant: "100", Size: e.Settings.BurstSize})
		if err != nil {
			return check.Verdict{}, err
		}
		ev.Bursts = append(ev.Bursts, b)
		run.Bursts = append(run.Bursts, b)
		run.Sends = append(run.Sends, sends...)
		if slices.ContainsFunc(sends, func(x history.Exchange) bool { return x.Outcome == history.OK && !x.Is2xx() }) {
			break
		}
	}
	v, notes := check.InFlightConflict(run)
	ev.Notes = append(ev.Notes, notes...)
	return v, nil
}

// K6: a first attempt made to fail, then retries without the trigger.
func failedFirstAttempt(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error) {
	trigger := e.Target.FailTrigger
	if trigger == nil {
		return check.Skip(check.K6.ID, "the target declares no fail_trigger: idemspec cannot make a create fail on purpose"), nil
	}
	key, marker := e.NewKey(), e.NewMarker(check.K6.ID)
	body, err := e.Body(marker, "100")
	if err != nil {
		return check.Verdict{}, err
	}
	ev.Faults = append(ev.Faults, fmt.Sprintf("fail trigger %s: %s on the first attempt only", trigger.Header, trigger.Value))
	first := e.Send(ctx, h, harness.Attempt{
		Step: "first (made to fail)", Lane: e.Clean, Key: key, Body: body, Variant: "100",
		Header: http.Header{http.CanonicalHeaderKey(trigger.Header): {trigger.Value}},
	})
	retry := harness.Attempt{Step: "retry", Lane: e.Clean, Key: key, Body: body, Variant: "100"}
	retries := e.SendUntilSettled(ctx, h, retry, e.Target.InProgressTimeout+e.Settings.RequestTimeout)
	retry.Step = "second retry"
	again := e.Send(ctx, h, retry)
	r, err := reading(ctx, e, ev, marker, "after the retries")
	if err != nil {
		return check.Verdict{}, err
	}
	v, notes := check.FailedFirstAttempt(check.FailedFirstRun{
		First: first, Retries: retries, Again: again, Reading: r, InFlight: e.Target.Profile.InFlight,
		Convention: e.Target.Profile.FailedAttempt,
	})
	ev.Notes = append(ev.Notes, notes...)
	return v, nil
}
