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
// no ids). ok is false when no create carried a marker. A resource the
// oracle shows that no answer on the wire carried is an error
// (errAroundTheInterposer): the program created it another way.
func (t *trial) oracleCount(ctx context.Context, xs []wire.Exchange) (n int, ok bool, err error) {
	var fresh []string
	for _, m := range t.markers(xs) {
		obs, err := t.observe(ctx, m)
		if err != nil {
			return 0, false, fmt.Errorf("oracle, marker %s: %w", m, err)
		}
		t.ev.Readings = append(t.ev.Readings, t.ce.Env.Reading(m, "after the trial (the marker the program's creates carried)", obs))
		before := t.wt.before[m]
		// A list cut short (ids_omitted) names no new ids for sure: its
		// count's growth does.
		if obs.IDs == nil || obs.Omitted > 0 || before.Omitted > 0 {
			n += max(obs.Count-before.Count, 0)
		} else {
			for _, id := range obs.IDs {
				if !slices.Contains(before.IDs, id) && !slices.Contains(fresh, id) {
					fresh = append(fresh, id)
				}
			}
		}
		ok = true
	}
	n += len(fresh)
	if ok {
		if err := t.onTheWire(xs, fresh, n); err != nil {
			return n, ok, err
		}
	}
	return n, ok, nil
}

// onTheWire checks that the resources the oracle shows new since the
// baseline (fresh, its ids; n, how many) were made by requests the
// interposer forwarded: each fresh id was carried by an API's answer on
// the wire, or, where ids cannot be compared, the count does not
// exceed the creates the wire saw committed. A forwarded create whose
// answer never came may have made one the wire has no id of.
func (t *trial) onTheWire(xs []wire.Exchange, fresh []string, n int) error {
	var carried []string
	for _, x := range t.wt.baseline {
		carried = append(carried, x.ResourceID)
	}
	// committed counts the trial's creates the API answered 2xx (a
	// replay too: the count only bounds), unanswered those forwarded
	// with no answer from the API.
	committed, unanswered, idless := 0, 0, false
	for _, x := range xs {
		carried = append(carried, x.ResourceID)
		switch {
		case x.Committed() && x.Kind == wire.Create:
			committed++
			idless = idless || x.ResourceID == ""
		case x.Kind == wire.Create && x.Forwarded && x.AnsweredBy != wire.AnsweredByAPI:
			unanswered++
		}
	}
	var unseen []string
	if len(fresh) > 0 && !idless {
		for _, id := range fresh {
			if id == "" || !slices.Contains(carried, id) {
				unseen = append(unseen, id)
			}
		}
		if len(unseen) <= unanswered {
			return nil
		}
		return errAroundTheInterposer{fmt.Sprintf("the oracle lists %d resource(s) under the markers the program's creates carried that no answer on the wire carried (%s)", len(unseen), someIDs(unseen))}
	}
	if n <= committed+unanswered {
		return nil
	}
	return errAroundTheInterposer{fmt.Sprintf("the oracle counts %d new resource(s) under the markers the program's creates carried, and the API answered %d create(s) through idemspec", n, committed)}
}

// errAroundTheInterposer says the program reached the API another way
// than through idemspec's interposer: what it did there is not on the
// wire, so no verdict can stand on the wire's record (an ERROR, never a
// PASS).
type errAroundTheInterposer struct{ what string }

func (e errAroundTheInterposer) Error() string {
	return e.what + ": the program reached the API another way than through idemspec's interposer (a second base URL, an SDK's fallback host, the API's own address), so its requests cannot be judged; hand it idemspec's URL in every variable it reads one from"
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
