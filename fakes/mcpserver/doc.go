// Package mcpserver is the reference MCP server of the tool audit
// (`idemspec serve --mcp`) and its mutants: one tool for each case the
// audit judges (an idempotent upsert, read-only reads, a create keyed by
// a request id, a plain append) and, for each lie a server can tell in
// its annotations, a mutant that tells it. Every mutant is the reference
// plus one replaced step, and names the checks that must catch it.
//
// It keeps its state in memory, or in a JSON file (--state) written
// before each answer, so that a restarted or crashed process remembers
// every effect it answered for. It must never be reachable beyond
// loopback: the HTTP form listens where it is told, on 127.0.0.1 in
// every test.
package mcpserver
