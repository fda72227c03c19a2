// Package fakes holds idemspec's reference implementations, the
// idempotent server and the retrying client, and their mutants.
//
// The reference server is what a correct implementation looks like: the
// request key is a primary key scoped by tenant, so the database's unique
// constraint (never a look-up followed by an insert) decides which of two
// concurrent requests owns a key; the record stores a payload hash, an
// in-flight state answered with 409, and the final status and body, which
// are replayed byte for byte; records live in SQLite and survive restarts.
// The reference client (RunClient) is harness/retry speaking the
// client-mode contract of harness/agent; the reference job agent
// (RunJob) runs a job of several steps the same way, one journaled
// operation per step. The reference client over MCP (RunMCPClient) is
// the reference client with its sends made tool calls on the MCP Go SDK,
// so every client mutant is a mutant of it too; mcpside serves it the
// reference MCP server (mcpserver). In client mode the server also holds the one
// request a fault is aimed at (Hold) and lists a job's resources of
// every tenant from its database (Census).
//
// Each mutant is a reference plus exactly one named bug, and declares
// which checks must catch it. The references make their decisions through
// small steps (steps.go for the server, clientSteps for the client,
// jobSteps for the job agent), and
// a mutant replaces or wraps one of them, beside the reference and never
// inside it: server.go reads as what correct looks like, and names no
// mutant. One registry (Mutants) lists the mutants of both; the detection
// matrix tests run the harness against every one and hold it to those
// entries.
//
// A fake:NAME target is started here (StartTarget): the fake started on
// a loopback port and described as a targets.Target, its instance the
// target's lifecycle. The product reaches it through internal/fakename,
// where fake: names resolve; client mode holds the reference server as
// an upstream.Server. Package targets knows nothing of the fakes.
//
// Nothing here knows about the harness engine or the checks: the server
// is an ordinary HTTP server, and the client imports only the retry
// library and the contract, both of which import nothing of the engine.
package fakes
