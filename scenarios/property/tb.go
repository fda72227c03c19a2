package property

import "io"

// TB is rapid's report sink for a search outside a test (the MCP tool
// audit's property uses it too): it records what rapid says and fails
// nothing, so the caller turns the shortest failing sequence into a
// verdict.
type TB = rapidTB

// NewTB is a TB named name (unique per search: rapid looks for old fail
// files by it) that copies rapid's output to log.
func NewTB(name string, log io.Writer) *TB { return &rapidTB{name: name, log: log} }

// Message is what rapid reported, in one string.
func (r *rapidTB) Message() string { return r.message() }
