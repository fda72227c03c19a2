package scenarios

import (
	"context"
	"fmt"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
)

// K4: §2.6: "Retry: The request was retried after the original request
// completed. The resource server SHOULD respond with the result of the
// previously completed operation, success or an error."
var K4 = check.Define(Check{
	ID: "K4", Group: "keys", Level: check.SHOULD, Clause: "draft-ietf-httpapi-idempotency-key-header §2.6",
	Title:    "should replay the original status, body, content type and Location",
	Why:      "A retry that gets another answer than the original (another status, no Location) sends the client down another path than the first attempt would have.",
	Fix:      "Store the whole answer (status, body, content type, Location) with the key record and replay it as it was, adding only a replay marker.",
	Stimulus: "Sends a create, then the same request again with its key.",
	Proof:    "The replay's status, body (outside the declared volatile fields), content type and Location, compared with the original's.",
	Plan:     fixed(2),
	Run:      serverRun(replayFidelity),
})

// K4: a replay carries what the original carried.
func replayFidelity(ctx context.Context, e *harness.Env, h *history.History, ev *check.Evidence) (check.Verdict, error) {
	key, marker := e.NewKey(), e.NewMarker("K4")
	body, err := e.Body(marker, "100")
	if err != nil {
		return check.Verdict{}, err
	}
	a := harness.Attempt{Step: "original", Lane: e.Clean, Key: key, Body: body, Variant: "100"}
	rec := ReplayRecord{Original: e.Send(ctx, h, a), Volatile: e.Target.Volatile, Markers: replayMarkers(e)}
	a.Step = "replay"
	rec.Replay = e.Send(ctx, h, a)
	v, notes := ReplayFidelity(rec)
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

// ReplayRecord is what K4 observed: a create, and the same request again
// after it completed.
type ReplayRecord struct {
	Original history.Exchange
	Replay   history.Exchange
	Volatile []string
	// Markers are the header names that may mark a replay (the profile's
	// first); K4 reports the one it finds.
	Markers []string
}

// ReplayFidelity judges K4: the replay carries the original's status,
// body (but for volatile fields), Content-Type and Location. It also
// says, for the evidence, how the replay was marked.
func ReplayFidelity(rec ReplayRecord) (check.Verdict, []string) {
	o, r := rec.Original, rec.Replay
	xs := []history.Exchange{o, r}
	if err := unreached(xs); err != nil {
		return check.Errored("K4", err), nil
	}
	if o.Outcome == history.OK && !o.Is2xx() {
		return check.Errored("K4", fmt.Errorf("the original request was not accepted (status %d), so there is nothing to replay", o.Status)), nil
	}
	if missing := unanswered(xs); len(missing) > 0 {
		return judged("K4", nil, missing), nil
	}
	var vs []check.Violation
	if r.Is2xx() && r.ResourceID != o.ResourceID {
		// The same request executed again: the key was not honoured, the
		// MUST checks' failure (S1, S2), and there is no replay whose
		// fidelity could be judged.
		return check.Skip("K4", fmt.Sprintf("S1 and S2 fail here: the same request again made another resource (%s, the original %s), so there is no replay to judge", quoted(r.ResourceID), quoted(o.ResourceID))), nil
	}
	seqs := []int{o.Seq, r.Seq}
	if same, how := check.SameAnswer(o, r, rec.Volatile); !same {
		vs = append(vs, check.Violation{What: "the replay's status or body differs from the original's", Observed: how, Seqs: seqs})
	}
	for _, h := range []string{"Content-Type", "Location"} {
		if o.Headers[h] != r.Headers[h] {
			vs = append(vs, check.Violation{
				What: "the replay's " + h + " differs from the original's", Expected: quoted(o.Headers[h]),
				Observed: quoted(r.Headers[h]), Seqs: seqs,
			})
		}
	}
	return check.Judge("K4", vs...), []string{replayMarker(rec)}
}

// replayMarker says how the replay was marked, if at all (a MAY).
func replayMarker(rec ReplayRecord) string {
	for _, name := range rec.Markers {
		if v, ok := rec.Replay.Headers[name]; ok {
			if _, onOriginal := rec.Original.Headers[name]; onOriginal {
				return fmt.Sprintf("replay marker: %s is on the original answer too (%q), so it marks nothing", name, rec.Original.Headers[name])
			}
			return fmt.Sprintf("replay marker: %s: %s", name, v)
		}
	}
	return "replay marker: none (a marker such as Idempotent-Replayed: true is optional)"
}
