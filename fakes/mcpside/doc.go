// Package mcpside is the server an agent under test meets in client mode
// over MCP (`idemspec client --mcp`): the reference MCP server
// (fakes/mcpserver, with its record tools) served from idemspec's own
// process, over stdio through a relay the agent starts, and over
// streamable HTTP. Between the agent and the server it keeps the log the
// client checks judge (every create and find call, its key, its
// arguments' digest, its outcome), answers creates with a transient or a
// final tool error on request, drops the answers of tool calls that ran
// (stdio; over HTTP the fault proxy's lanes do it), and restarts the
// server, which ends every session.
//
// It listens on loopback only, and it never retries or resends a call.
package mcpside
