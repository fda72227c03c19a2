// Package fakename is where a fake: name resolves: "fake:NAME[?...]"
// starts a built-in fake in this process, anything else is a target
// file; and client mode's reference upstreams (the reference server,
// the reference MCP side) start here. It is the one production package
// besides `idemspec serve` and the reference programs that names the
// fakes: everything else holds a targets.Target or an upstream
// interface, never a fakes type.
package fakename

import (
	"strings"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/fakes/mcpside"
	"github.com/idemspec/idemspec/fakes/mutant"
	"github.com/idemspec/idemspec/harness/upstream"
	"github.com/idemspec/idemspec/targets"
)

// Prefix names the built-in targets: fake:reference, fake:<mutant>.
const Prefix = fakes.TargetPrefix

// Is says whether ref names a built-in fake rather than a target file.
func Is(ref string) bool { return strings.HasPrefix(ref, Prefix) }

// Load builds the target ref names: a built-in fake started on a
// loopback port (fakes.StartTarget reads its options), or a target file
// (targets.LoadFile).
func Load(ref string) (*targets.Target, error) {
	if Is(ref) {
		return fakes.StartTarget(ref)
	}
	return targets.LoadFile(ref)
}

// Names is every built-in server's fake: name, the reference's first.
func Names() []string {
	names := []string{Prefix + fakes.Reference}
	for _, m := range fakes.MutantsOf(fakes.OfServer) {
		names = append(names, Prefix+m.Name)
	}
	return names
}

// StartReference starts the reference server client mode runs a program
// against, reading its key from keyIn (targets.KeyInHeader, KeyInBody or
// KeyInQuery), and describes it: the target's Lifecycle stops it.
func StartReference(keyIn string) (*targets.Target, upstream.Server, error) {
	in, err := fakes.Start(fakes.Options{KeyIn: keyIn}, "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	t := targets.DescribeReference(in.URL, "reference server (client mode)")
	targets.ReferenceKeyIn(t, keyIn)
	t.Lifecycle = in
	return t, in, nil
}

// MCPSide is the reference MCP server served from this process to an
// agent under test (client --mcp).
type MCPSide interface {
	upstream.MCPSide
	// RelayAddr is where `idemspec serve --mcp --relay` connects a
	// client's stdio.
	RelayAddr() string
	Close() error
}

// StartReferenceMCP starts the reference MCP side with its state in dir and
// describes its HTTP endpoint: the oracle reads the side's state, and
// there is nothing to clean (the server lives and dies with the run).
func StartReferenceMCP(dir string) (*targets.Target, MCPSide, error) {
	side, err := mcpside.Start(mcpside.Options{Dir: dir})
	if err != nil {
		return nil, nil, err
	}
	t := targets.DescribeReference(strings.TrimSuffix(side.URL(), "/mcp"), "reference MCP server (client mode)")
	t.Oracle, t.Cleanup = side, nil
	return t, side, nil
}

// The catalogue of the fakes, for the commands that list them (list,
// explain, the conformance page, completion): the reference and its
// mutants by kind.
const (
	Reference  = fakes.Reference
	OfServer   = fakes.OfServer
	OfClient   = fakes.OfClient
	OfWorkflow = fakes.OfWorkflow
	OfMCP      = fakes.OfMCP
)

// Mutant is one mutant's entry: its name, its bug, what catches it.
type Mutant = mutant.Mutant

// Mutants is every mutant of every kind.
func Mutants() []Mutant { return fakes.Mutants() }

// MutantsOf is the mutants of one kind (OfServer, OfClient, ...).
func MutantsOf(of string) []Mutant { return fakes.MutantsOf(of) }
