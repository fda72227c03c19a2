package agent

import (
	"fmt"
	"sort"
)

// bug is a deliberate defect of a mutant client. The reference client
// tests for a bug at the single place the mutant departs from it.
type bug int

const (
	noBug bug = iota
	bugNewKeyPerRetry
	bugNewPayloadPerRetry
	bugUnboundedRetry
	bugFailedOnTimeout
	bugNoReconcile
	bugMemoryState
	bugRetryFinal4xx
)

// Reference is the name of the correct client.
const Reference = "reference"

// Mutant is a client with one named bug and the client checks that must
// catch it.
type Mutant struct {
	Name    string
	Bug     string
	Catches []string
	bug     bug
}

var mutants = []Mutant{
	{Name: "new-key-per-retry", bug: bugNewKeyPerRetry, Catches: []string{"C1"},
		Bug: "sends every retry in this process with a fresh key"},
	{Name: "new-payload-per-retry", bug: bugNewPayloadPerRetry, Catches: []string{"C2"},
		Bug: "adds the attempt number to the payload of every retry (the bytes change)"},
	{Name: "unbounded-retry", bug: bugUnboundedRetry, Catches: []string{"C3"},
		Bug: "starts over with a fresh budget until it succeeds or is killed, ignoring its budget and deadline"},
	{Name: "failed-on-timeout", bug: bugFailedOnTimeout, Catches: []string{"C4"},
		Bug: "takes a create that got no answer for a refusal and reports FAILED"},
	{Name: "no-reconcile", bug: bugNoReconcile, Catches: []string{"C5"},
		Bug: "resubmits after an unknown outcome without looking the operation up"},
	{Name: "memory-state", bug: bugMemoryState, Catches: []string{"C6"},
		Bug: "keeps its key in memory only, so a restarted client starts a new operation"},
	{Name: "retry-final-4xx", bug: bugRetryFinal4xx, Catches: []string{"C7"},
		Bug: "retries a create refused with 400 or 422 as if it were a 503"},
}

// Mutants lists the mutant clients by name.
func Mutants() []Mutant {
	out := append([]Mutant(nil), mutants...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// LookupMutant finds a client by name; "" and "reference" are the
// correct client.
func LookupMutant(name string) (Mutant, error) {
	if name == "" || name == Reference {
		return Mutant{Name: Reference}, nil
	}
	for _, m := range mutants {
		if m.Name == name {
			return m, nil
		}
	}
	return Mutant{}, fmt.Errorf("unknown client bug %q (known: reference and the mutants of `idemspec agent --help`)", name)
}
