// Package mutant is the one shape of a mutant's entry, whatever it is a
// mutant of (the reference server, client, workflow agent or MCP
// server): its name, its bug, and the checks that must find it wanting,
// each on a subject where the check is judged per subject (an MCP
// check, per tool). The detection matrices read these entries; the
// packages that build the mutants keep the bug itself in Change.
//
// It is a leaf, importing only the check vocabulary (harness/check), so
// that fakes and fakes/mcpserver, which fakes imports, share it.
package mutant
