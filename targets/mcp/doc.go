// Package mcp is an MCP server as a target of the tool audit: how it is
// reached (a command that speaks stdio, managed as a process in its own
// group; or a streamable HTTP URL), what tools/list declares of its tools
// (annotations and input schemas), and calls to them through the
// official Go SDK, which does all the protocol work.
//
// It judges nothing and injects no fault: the checks (scenarios/mcptools)
// decide what to call, and the harness cuts answers on its lanes. Every
// call it makes is bounded by its context, and every process it starts
// is stopped by Close.
package mcp
