package fakes

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Mutant is a reference implementation, the server or the client, plus
// exactly one named bug, with the checks that must catch it. The
// detection matrices hold the harness to Catches: every listed check
// fails, every other check passes. The properties catch every server
// mutant by themselves: P1 each one that breaks a MUST check, P2 each one
// that breaks only SHOULD checks (P2 is skipped when P1 fails); a mutant
// right on one instance is caught where Multi says.
type Mutant struct {
	Name    string
	Of      string   // what it is a mutant of: OfServer or OfClient
	Bug     string   // what is wrong, in one sentence
	Catches []string // check IDs that must fail against this mutant
	// MayCatch lists checks that may also fail, with the reason in Why;
	// the matrix accepts either verdict for these and no others.
	MayCatch []string
	Why      string
	// Multi lists the checks that must fail when two instances of the
	// mutant share one database (a single instance fails only Catches).
	Multi []string
	// Skips lists the checks that must be SKIP: the check their
	// judgement rests on fails (no refusal came, so there is no status
	// to judge; a step abandoned after a kill shows no key), and a PASS
	// would claim what nobody saw.
	Skips []string

	// server changes the one step of the reference server the bug lives
	// in (see steps); client, the one step of the reference client.
	server   func(*Server)
	client   func(*clientSteps)
	workflow func(*jobSteps)
}

// What a mutant is a mutant of.
const (
	OfServer = "server" // the reference server: `idemspec run --target fake:NAME`
	OfClient = "client" // the reference client: `idemspec agent --bug NAME`
	// OfWorkflow: the reference agent of the workflow shape, `idemspec
	// agent --bug NAME` run by `idemspec client --workflow`.
	OfWorkflow = "workflow agent"
)

// Reference is the name of the correct server and of the correct client.
const Reference = "reference"

// mutants is the one registry: every mutant of the server
// (mutants_server.go) and of the client (mutants_client.go).
var mutants = slices.Concat(serverMutants, clientMutants, workflowMutants, mcpMutants)

// asMutantsOf marks each of ms as a mutant of the server or the client.
func asMutantsOf(of string, ms []Mutant) []Mutant {
	for i := range ms {
		ms[i].Of = of
	}
	return ms
}

// Mutants lists every mutant, of the server and of the client, sorted by
// name.
func Mutants() []Mutant {
	out := slices.Clone(mutants)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// MutantsOf lists the mutants of the server (OfServer) or of the client
// (OfClient), sorted by name.
func MutantsOf(of string) []Mutant {
	return slices.DeleteFunc(Mutants(), func(m Mutant) bool { return m.Of != of })
}

// LookupMutant finds a mutant of the server or of the client by name;
// "reference" and "" are the correct one, which has no bug.
func LookupMutant(of, name string) (Mutant, error) {
	if name == "" || name == Reference {
		return Mutant{Name: Reference, Of: of}, nil
	}
	for _, m := range mutants {
		switch {
		case m.Name == name && m.Of == of:
			return m, nil
		case m.Name == name:
			return Mutant{}, fmt.Errorf("%q is a mutant of the %s, not of the %s", name, m.Of, of)
		}
	}
	names := []string{Reference}
	for _, m := range MutantsOf(of) {
		names = append(names, m.Name)
	}
	return Mutant{}, fmt.Errorf("unknown mutant of the %s %q (known: %s)", of, name, strings.Join(names, ", "))
}
