package harness

import (
	"bytes"
	"context"
	"errors"

	"github.com/idemspec/idemspec/harness/wire"
	"github.com/idemspec/idemspec/targets"
)

// errWireTLS refuses oracle.wire on a TLS target: the tap reads the bytes
// between the lanes and the API, which TLS encrypts.
var errWireTLS = errors.New("oracle.wire reads the requests and answers between idemspec's lanes and the API, and a TLS target's are encrypted: give it another oracle (list, lookup, sql, command)")

// tapTheWire puts a tap on the lanes' connections to the target when an
// operation counts from the wire (oracle.wire), and gives each such
// oracle the tap's record to read. It runs before the lanes start.
func (e *Env) tapTheWire() error {
	var wired bool
	for _, o := range e.Target.Each() {
		wired = wired || o.OnTheWire()
	}
	if !wired {
		return nil
	}
	if e.Target.BaseURL.Scheme == "https" {
		return errWireTLS
	}
	tap := wire.NewTap(wire.OperationsOf(e.Target), e.Target.BaseURL.Path)
	e.proxies.tap = tap
	for _, o := range e.Target.Each() {
		if w, ok := o.Oracle.(*targets.WireOracle); ok {
			w.Attach(wireReading(tap, o.Operation))
		}
	}
	return nil
}

// wireReading counts a marker's resources from the tap's record: the
// distinct ids of the 2xx answers the API gave to the operation's
// creates carrying the marker, once every byte the tap was given is read.
func wireReading(tap *wire.Tap, operation string) func(context.Context, string) (targets.Observation, error) {
	return func(ctx context.Context, marker string) (targets.Observation, error) {
		if err := tap.Settle(ctx); err != nil {
			return targets.Observation{}, err
		}
		var carrying []wire.Exchange
		for _, x := range tap.Record().Exchanges() {
			if bytes.Contains(x.Body, []byte(marker)) {
				carrying = append(carrying, x)
			}
		}
		ids := wire.CreatedIDs(carrying, operation)
		return targets.Observation{Count: len(ids), IDs: ids}, nil
	}
}
