package targets

import (
	"context"
	"errors"
	"sync"
)

// wireSpec is oracle.wire, as written: it takes no settings.
type wireSpec struct{}

// WireOracle counts what the API's own answers say it created: the
// distinct resource ids (create.id_field) of the 2xx answers to creates
// carrying the marker that the API gave on idemspec's lanes, the answers
// a fault then dropped included. The lanes' record is the harness's (it
// reads the connections to the API); the harness attaches it.
//
// It is for an API that can neither list nor look up what it made, and
// is weaker than a list: an execution whose answer was never written (a
// crash mid-request) leaves nothing on the wire, so a check that needs
// to see one (S5b) is skipped with it, and a create answered without a
// readable id counts once per answer.
type WireOracle struct {
	mu   sync.Mutex
	read func(ctx context.Context, marker string) (Observation, error)
}

func (o *WireOracle) Kind() string { return "wire" }

// Evidence says what a reading from this oracle proves.
func (o *WireOracle) Evidence() string {
	return "weak: the distinct ids of the create answers the API gave on idemspec's lanes, dropped ones included; an execution whose answer was never written (a crash mid-request) is invisible to it"
}

// Attach gives the oracle the lanes' record to read.
func (o *WireOracle) Attach(read func(ctx context.Context, marker string) (Observation, error)) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.read = read
}

// errNoWire is a reading of a wire oracle no harness attached to.
var errNoWire = errors.New("oracle.wire: no lanes' record to read (only a run of idemspec through its lanes keeps one)")

// Observe counts marker's resources on the wire.
func (o *WireOracle) Observe(ctx context.Context, marker string) (Observation, error) {
	o.mu.Lock()
	read := o.read
	o.mu.Unlock()
	if read == nil {
		return Observation{}, errNoWire
	}
	return read(ctx, marker)
}

// OnTheWire says whether t counts from the lanes' record (oracle.wire).
func (t *Target) OnTheWire() bool {
	_, ok := t.Oracle.(*WireOracle)
	return ok
}
