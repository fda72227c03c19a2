package scenarios

import (
	"context"
	"fmt"
	"slices"

	"github.com/idemspec/idemspec/harness/wire"
	"github.com/idemspec/idemspec/targets"
)

// The oracle's view of an unmodified program's resources: the file's
// create.body says where its marker goes, and a program that puts a
// value of its own there (an order number) has its resources counted
// by it, as the ids new since the baseline.

// maxMarkers bounds the oracle readings of one run: the distinct
// markers of its creates it reads.
const maxMarkers = 4

// markers are the distinct markers the trial operation's creates in xs
// carried where the file's body puts {{.Marker}} (none without an
// oracle, or when the program puts nothing there).
func (t *trial) markers(xs []wire.Exchange) []string {
	op := t.operation()
	// An operation with setup renders its oracle from a marker's setup,
	// which would create what the program did not.
	if op.Oracle == nil || len(op.Setup) > 0 {
		return nil
	}
	var out []string
	for _, x := range xs {
		if x.Kind != wire.Create || x.Operation != t.wt.op {
			continue
		}
		if m, ok := op.MarkerOf(x.Body); ok && !slices.Contains(out, m) && len(out) < maxMarkers {
			out = append(out, m)
		}
	}
	return out
}

// oracleCount is how many resources the oracle shows the trial's
// creates made: for each marker they carried, the ids listed now and
// not after the baseline (the count's growth, for an oracle that lists
// no ids). ok is false when no create carried a marker.
func (t *trial) oracleCount(ctx context.Context, xs []wire.Exchange) (n int, ok bool, err error) {
	for _, m := range t.markers(xs) {
		obs, err := t.observe(ctx, m)
		if err != nil {
			return 0, false, fmt.Errorf("oracle, marker %s: %w", m, err)
		}
		t.ev.Readings = append(t.ev.Readings, t.ce.Env.Reading(m, "after the trial (the marker the program's creates carried)", obs))
		before := t.wt.before[m]
		if obs.IDs == nil {
			n += max(obs.Count-before.Count, 0)
		} else {
			for _, id := range obs.IDs {
				if !slices.Contains(before.IDs, id) {
					n++
				}
			}
		}
		ok = true
	}
	return n, ok, nil
}

// operation is the target file's view of the operation the trial aims
// at.
func (t *trial) operation() *targets.Target {
	for _, o := range t.ce.Env.Target.Each() {
		if o.Operation == t.wt.op {
			return o
		}
	}
	return t.ce.Env.Target
}

// observe reads the aimed operation's oracle for a marker, straight to
// the API (never through the interposer or the lane).
func (t *trial) observe(ctx context.Context, marker string) (targets.Observation, error) {
	ctx, cancel := context.WithTimeout(ctx, t.ce.Env.Settings.RequestTimeout)
	defer cancel()
	return t.operation().Oracle.Observe(ctx, marker)
}
