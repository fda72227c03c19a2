// Package mcprelay is the relay `idemspec client --mcp --target` puts
// between an unmodified agent's MCP client and the real MCP server a
// target file describes. It offers the agent the server's own tools
// (names, schemas, annotations), over stdio (through a relay command the
// agent starts) and over streamable HTTP, and forwards every tools/call
// to one session with the server.
//
// On the way it records every call with its arguments and answer (the
// answers it then drops included), and injects the faults client mode
// aims per call: an answer of its own (a retryable or a final tool
// error, its text alone, as a real server's is: internal/toolfault), an
// answer held and then dropped (calls to tools not declared
// read-only), and a restart that ends every session. It judges nothing.
// It listens on loopback only, never resends a call, and bounds every
// hold.
package mcprelay
