package harness

import (
	"context"
	"fmt"

	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/targets"
)

// PreflightCreate sends one create of the harness's own, with a fresh
// key and payload, before any check. A target that refuses it (a 4xx:
// a wrong create.path or method, a body the API rejects, missing
// credentials) would fail every check for a reason that is not
// idempotency, so the run stops with one plain error instead. So does a
// create.id_field that reads no id, the marker, or another id than the
// oracle's (targets.IDFieldReading): every check would blame the API.
// The resource it creates carries a run marker, so the cleanup removes
// it.
func (e *Env) PreflightCreate(ctx context.Context) error {
	marker := e.NewMarker("preflight")
	body, err := e.Body(marker, "1")
	if err != nil {
		return err
	}
	x := e.Send(ctx, &history.History{}, Attempt{Step: "preflight create", Lane: e.Clean, Key: e.NewKey(), Body: body, Variant: "1"})
	e.createLatency.Store(int64(x.Duration))
	switch {
	case x.Outcome != history.OK:
		return fmt.Errorf("the target did not answer the harness's first create (%s %s): %s", e.Target.Create.Method, e.Target.Create.Path, x.Error)
	case x.Status == 401 || x.Status == 403:
		// A refused credential is no fault of the path or the body.
		return fmt.Errorf("the target refused the credentials: check headers: and the variables they read (%s %s answered %d%s)",
			e.Target.Create.Method, e.Target.Create.Path, x.Status, targets.QuoteStart(x.Body))
	case x.Status >= 400 && x.Status < 500:
		return fmt.Errorf("the target refused the create itself: check create.path/body (%s %s answered %d%s)",
			e.Target.Create.Method, e.Target.Create.Path, x.Status, targets.QuoteStart(x.Body))
	case x.Status >= 200 && x.Status < 300:
		return e.checkIDField(ctx, marker, x)
	}
	return nil
}

// checkIDField compares the id create.id_field reads from the first
// create's answer with what the oracle finds for its marker. An oracle
// that cannot be read now leaves the comparison to the checks, which
// report the oracle's error as theirs.
func (e *Env) checkIDField(ctx context.Context, marker string, x history.Exchange) error {
	// x.ResourceID was read from the whole answer; x.Body, kept for the
	// reports, may be cut short, and then only the suggestion is lost.
	answer := []byte(x.Body)
	r := targets.IDFieldReading{
		Field: e.Target.Create.IDField, Read: x.ResourceID, Request: e.Target.Create.Method + " " + e.Target.Create.Path,
		Status: x.Status, Answer: answer, Marker: marker, Oracle: e.Target.Oracle.Kind(),
	}
	ctx, cancel := context.WithTimeout(ctx, e.Settings.RequestTimeout)
	defer cancel()
	var err error
	if o, ok := e.Target.Oracle.(targets.IDOracle); ok {
		r.ByID = true
		r.Seen, err = o.ObserveIDs(ctx, marker, targets.IDFieldCandidates(answer, x.ResourceID, marker))
	} else {
		r.Seen, err = e.Target.Oracle.Observe(ctx, marker)
	}
	if err != nil {
		return nil
	}
	return r.Problem()
}
