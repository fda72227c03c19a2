// Package agent is the contract between idemspec and a client under test
// in client mode (docs/CLIENT-CONTRACT.md): the environment a client
// command is given, for one create (Inputs) or a job of several steps
// (Job, the workflow shape), over MCP (MCP: the server's command or URL,
// its tools and the create's arguments), and the result it prints on its last stdout
// line, whose end states harness/retry/state names. A Source says where a
// client takes one create's inputs from: the contract's variables
// (Contract), or its own choices as an unmodified agent that reads only
// its base URL (Own, the twins `idemspec client --target` is tested on).
//
// idemspec's reference client for this contract, and its mutants, live
// beside the reference server in fakes (fakes.RunClient, fakes.RunJob). This package
// holds only the contract, so the harness and any client can share it
// without depending on either.
package agent
