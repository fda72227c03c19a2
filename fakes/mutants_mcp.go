package fakes

import "github.com/idemspec/idemspec/fakes/mcpserver"

// OfMCP marks the mutants of the reference MCP server (fakes/mcpserver),
// which `idemspec serve --mcp --mutant NAME` serves and `idemspec mcp`
// audits.
const OfMCP = "MCP server"

// mcpMutants are the MCP server's mutants as entries of the one
// registry: their bugs and the checks that catch them (the tools each
// check must fail on are in mcpserver's own entry).
var mcpMutants = func() []Mutant {
	var out []Mutant
	for _, m := range mcpserver.Mutants() {
		var ids []string
		for _, c := range m.Catches {
			ids = append(ids, c.Check)
		}
		out = append(out, Mutant{Name: m.Name, Bug: m.Bug, Catches: ids})
	}
	return asMutantsOf(OfMCP, out)
}()
