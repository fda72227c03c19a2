package mcpserver

import (
	"context"
	"fmt"
	"os"
	"strings"
)

// ServeVar, set in a test binary's environment, makes ServeIfAsked serve
// the mutant it names over stdio: a test starts its own binary as the MCP
// server, with no build step. StateVar names the state file.
const (
	ServeVar = "IDEMSPEC_TEST_MCP_SERVE"
	StateVar = "IDEMSPEC_TEST_MCP_STATE"
)

// ServeIfAsked is for a test package's TestMain: when ServeVar is set it
// serves over stdio until the client closes its input, then exits.
func ServeIfAsked() {
	name, ok := os.LookupEnv(ServeVar)
	if !ok {
		return
	}
	s, err := New(Options{Mutant: name, StatePath: os.Getenv(StateVar)})
	if err == nil {
		err = s.ServeStdio(context.Background())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpserver:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// SelfCommand is the shell command and environment that start the
// running test binary as the server mutant (Reference for none), keeping
// its state in statePath ("" in memory). The test's TestMain must call
// ServeIfAsked.
func SelfCommand(mutant, statePath string) (command string, env []string) {
	return quote(os.Args[0]), []string{ServeVar + "=" + mutant, StateVar + "=" + statePath}
}

// quote is s as one shell word.
func quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
