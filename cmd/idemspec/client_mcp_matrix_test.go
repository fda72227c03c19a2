package main_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/fakes"
)

// The client matrix over MCP: the reference agent (Go SDK) and the
// TypeScript example (the MCP TypeScript SDK) pass C1-C7 over stdio and
// over streamable HTTP, and each client mutant fails exactly its Catches
// over both. The TypeScript example's --list-tools twin lists the tools
// on each session, so that its SDK validates every answer's structured
// content against create_record's declared outputSchema: it passes too,
// on the contract and through the relay, since every answer idemspec
// injects is one the server could give.

// tsExampleInstall is how .ci/run installs and builds the TypeScript
// example.
const tsExampleInstall = "npm ci --prefix examples/clients/typescript && npm run --prefix examples/clients/typescript build"

func mcpClientEntries() []clientEntry {
	_, file, _, _ := runtime.Caller(0)
	tsClient := filepath.Join(filepath.Dir(file), "..", "..", "examples", "clients", "typescript", "dist", "client.js")
	var entries []clientEntry
	for _, transport := range []string{"stdio", "http"} {
		args := []string{"--mcp", "--mcp-transport", transport}
		if transport == "stdio" {
			// Over stdio the first call's attempt includes starting the
			// server's process (two with the relay): beside a second
			// test suite that took more than 2 s, and every attempt of
			// a 5 s deadline could pass before one call was made.
			args = append(args, stdioBounds...)
		}
		entries = append(entries,
			clientEntry{name: "mcp-" + transport + "/reference", command: binary + " agent --mcp", args: args, slack: agentSlack},
			clientEntry{name: "mcp-" + transport + "/typescript", command: "node " + tsClient, args: args, slack: pythonSlack,
				requires: func(t *testing.T) { requireBuilt(t, tsClient, tsExampleInstall) }},
			clientEntry{name: "mcp-" + transport + "/typescript-list-tools", command: "node " + tsClient + " --list-tools", args: args, slack: pythonSlack,
				requires: func(t *testing.T) { requireBuilt(t, tsClient, tsExampleInstall) }, runs: 2})
		for _, m := range fakes.MutantsOf(fakes.OfClient) {
			// Three runs each: the reference's five hold the rule of no
			// false alarm; a mutant's verdict was the same in 10 of 10
			// runs of each under load (make test's time is CI's).
			entries = append(entries, clientEntry{name: "mcp-" + transport + "/" + m.Name, command: binary + " agent --mcp --bug " + m.Name,
				args: args, catches: m.CaughtBy(), slack: agentSlack, runs: 3})
		}
	}
	return append(append(entries, mcpTwinEntries()...), tsTwinEntry(tsClient))
}

// tsTwinEntry is the TypeScript example with --list-tools, unmodified,
// reading only RECORDS_MCP_COMMAND, judged through --mcp --target
// against `idemspec serve --mcp --records` behind idemspec's relay: the
// relay's own answers (C3, C7) must fit create_record's declared
// outputSchema, or its SDK throws where the real server never makes it.
func tsTwinEntry(tsClient string) clientEntry {
	file := filepath.Join(filepath.Dir(binary), "mcp-twin-typescript-list-tools.yaml")
	state := filepath.Join(filepath.Dir(binary), "mcp-twin-typescript-list-tools.json")
	yaml := fmt.Sprintf("name: records\nmcp:\n  command: %s serve --mcp --records --state %s\n", binary, state)
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		panic(err) // the binary's own directory: writable, or no test runs
	}
	return clientEntry{name: "mcp-twin/typescript-list-tools", command: "node " + tsClient + " --list-tools",
		args: []string{"--mcp", "--target", file, "--mcp-command-env", "RECORDS_MCP_COMMAND"}, slack: pythonSlack, runs: 2, serial: true,
		requires: func(t *testing.T) { requireBuilt(t, tsClient, tsExampleInstall) }}
}

// stdioBounds are a program's bounds when its first call starts an MCP
// server over stdio (they follow, and so override, the matrix's).
var stdioBounds = []string{"--deadline", "10s", "--attempt-timeout", "4s"}

// mcpTwinEntries are the agent's twins over MCP: the reference agent and
// each mutant unmodified, reading only RECORDS_MCP, judged through
// --mcp --target against `idemspec serve --mcp --records` as a real MCP
// server behind idemspec's relay. Each entry's server keeps its state in
// a file of its own (a restart keeps the records), beside the binary.
func mcpTwinEntries() []clientEntry {
	entry := func(name, bug string, catches []string) clientEntry {
		file := filepath.Join(filepath.Dir(binary), "mcp-twin-"+name+".yaml")
		state := filepath.Join(filepath.Dir(binary), "mcp-twin-"+name+".json")
		yaml := fmt.Sprintf("name: records\nmcp:\n  command: %s serve --mcp --records --state %s\n", binary, state)
		if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
			panic(err) // the binary's own directory: writable, or no test runs
		}
		return clientEntry{name: "mcp-twin/" + name, command: binary + " agent --mcp --mcp-command-env RECORDS_MCP " + strings.Join(stdioBounds, " ") + bug,
			args: []string{"--mcp", "--target", file, "--mcp-command-env", "RECORDS_MCP"}, catches: catches, slack: agentSlack, runs: 2, serial: true}
	}
	entries := []clientEntry{entry(fakes.Reference, "", nil)}
	for _, m := range fakes.MutantsOf(fakes.OfClient) {
		entries = append(entries, entry(m.Name, " --bug "+m.Name, m.CaughtBy()))
	}
	return entries
}

// requireBuilt skips (fails with CI=true) unless node and the built file
// are there.
func requireBuilt(t *testing.T, file, install string) {
	t.Helper()
	requireInstalled(t, "node", "apt-get install -y nodejs npm")
	if _, err := os.Stat(file); err == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is not built and CI=true: .ci/run must build it (%s)", file, install)
	}
	t.Skipf("%s is not built: %s (CI builds it, and this test fails there without it)", file, install)
}
