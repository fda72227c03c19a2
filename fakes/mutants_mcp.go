package fakes

import (
	"slices"

	"github.com/idemspec/idemspec/fakes/mcpserver"
	"github.com/idemspec/idemspec/fakes/mutant"
)

// OfMCP marks the mutants of the reference MCP server (fakes/mcpserver),
// which `idemspec serve --mcp --mutant NAME` serves and `idemspec mcp`
// audits.
const OfMCP = "MCP server"

// mcpMutants are the MCP server's mutants, as mcpserver lists them (each
// catch on the tool it must fail on), in the one registry; the
// reference's own entry is not a mutant.
var mcpMutants = asMutantsOf(OfMCP, slices.DeleteFunc(mcpserver.Mutants(), func(m mutant.Mutant) bool {
	return m.Name == mcpserver.Reference
}))
