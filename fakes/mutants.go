package fakes

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/idemspec/idemspec/fakes/mutant"
)

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
// (mutants_server.go), of the client (mutants_client.go), of the
// workflow agent (mutants_workflow.go) and of the MCP server
// (mutants_mcp.go). Each entry's Change is a func(*Server), a
// func(*clientSteps) or a func(*jobSteps), which Open, RunClient and
// RunJob apply.
var mutants = slices.Concat(serverMutants, clientMutants, workflowMutants, mcpMutants)

// asMutantsOf marks each of ms as a mutant of the server or the client.
func asMutantsOf(of string, ms []mutant.Mutant) []mutant.Mutant {
	for i := range ms {
		ms[i].Of = of
	}
	return ms
}

// Mutants lists every mutant, of the server and of the client, sorted by
// name.
func Mutants() []mutant.Mutant {
	out := slices.Clone(mutants)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// MutantsOf lists the mutants of the server (OfServer) or of the client
// (OfClient), sorted by name.
func MutantsOf(of string) []mutant.Mutant {
	return slices.DeleteFunc(Mutants(), func(m mutant.Mutant) bool { return m.Of != of })
}

// LookupMutant finds a mutant of the server or of the client by name;
// "reference" and "" are the correct one, which has no bug.
func LookupMutant(of, name string) (mutant.Mutant, error) {
	if name == "" || name == Reference {
		return mutant.Mutant{Name: Reference, Of: of}, nil
	}
	for _, m := range mutants {
		switch {
		case m.Name == name && m.Of == of:
			return m, nil
		case m.Name == name:
			return mutant.Mutant{}, fmt.Errorf("%q is a mutant of the %s, not of the %s", name, m.Of, of)
		}
	}
	names := []string{Reference}
	for _, m := range MutantsOf(of) {
		names = append(names, m.Name)
	}
	return mutant.Mutant{}, fmt.Errorf("unknown mutant of the %s %q (known: %s)", of, name, strings.Join(names, ", "))
}
