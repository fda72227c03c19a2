// Package mcptools is the audit of an MCP server's tools for retry
// safety: the checks M1..M9, each a value with its stable ID, level and
// the clause of the MCP specification it holds a tool to, and the pure
// judges they end in.
//
// A check drives one tool through a Server (stdio or streamable HTTP),
// records every call and every oracle reading in a Trace, and judges the
// trace: judges never call, sleep or read a clock, so they are tested on
// hand-made traces. Effects are counted as the occurrences of a trial's
// marker in what the oracle (a read-only tool) returns, so "the state of
// one call" is measured, never assumed. Calls run one trial at a time,
// bounded in count (Settings) and time (each check's deadline).
package mcptools
