package check

import (
	"fmt"

	"github.com/idemspec/idemspec/harness/history"
)

// ReplayRun is what K4 observed: a create, and the same request again
// after it completed.
type ReplayRun struct {
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
func ReplayFidelity(run ReplayRun) (Verdict, []string) {
	o, r := run.Original, run.Replay
	xs := []history.Exchange{o, r}
	if err := unreached(xs); err != nil {
		return Errored(K4.ID, err), nil
	}
	if o.Outcome == history.OK && !o.Is2xx() {
		return Errored(K4.ID, fmt.Errorf("the original request was not accepted (status %d), so there is nothing to replay", o.Status)), nil
	}
	vs := unanswered(xs)
	if len(vs) > 0 {
		return Judge(K4.ID, vs...), nil
	}
	seqs := []int{o.Seq, r.Seq}
	if same, how := SameAnswer(o, r, run.Volatile); !same {
		vs = append(vs, Violation{What: "the replay's status or body differs from the original's", Observed: how, Seqs: seqs})
	}
	for _, h := range []string{"Content-Type", "Location"} {
		if o.Headers[h] != r.Headers[h] {
			vs = append(vs, Violation{
				What: "the replay's " + h + " differs from the original's", Expected: quoted(o.Headers[h]),
				Observed: quoted(r.Headers[h]), Seqs: seqs,
			})
		}
	}
	return Judge(K4.ID, vs...), []string{replayMarker(run)}
}

// replayMarker says how the replay was marked, if at all (a MAY).
func replayMarker(run ReplayRun) string {
	for _, name := range run.Markers {
		if v, ok := run.Replay.Headers[name]; ok {
			if _, onOriginal := run.Original.Headers[name]; onOriginal {
				return fmt.Sprintf("replay marker: %s is on the original answer too (%q), so it marks nothing", name, run.Original.Headers[name])
			}
			return fmt.Sprintf("replay marker: %s: %s", name, v)
		}
	}
	return "replay marker: none (a marker such as Idempotent-Replayed: true is optional)"
}

func quoted(s string) string {
	if s == "" {
		return "none"
	}
	return fmt.Sprintf("%q", s)
}
