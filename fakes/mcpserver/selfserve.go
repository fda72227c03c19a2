package mcpserver

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// ServeVar, set in a test binary's environment, makes ServeIfAsked serve
// the mutant it names over stdio: a test starts its own binary as the MCP
// server, with no build step. StateVar names the state file.
// AddrVar, set too, serves streamable HTTP on that address instead,
// until SIGTERM.
const (
	ServeVar = "IDEMSPEC_TEST_MCP_SERVE"
	StateVar = "IDEMSPEC_TEST_MCP_STATE"
	AddrVar  = "IDEMSPEC_TEST_MCP_ADDR"
)

// ServeIfAsked is for a test package's TestMain: when ServeVar is set it
// serves over stdio until the client closes its input, then exits.
func ServeIfAsked() {
	name, ok := os.LookupEnv(ServeVar)
	if !ok {
		return
	}
	if strings.HasPrefix(name, "hostile-") {
		if err := serveHostile(context.Background(), name, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "mcpserver:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	s, err := New(Options{Mutant: name, StatePath: os.Getenv(StateVar)})
	if addr := os.Getenv(AddrVar); err == nil && addr != "" {
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
		defer stop()
		err = s.ListenAndServe(ctx, addr, func(string) {})
	} else if err == nil {
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

// SelfHTTPFile is an MCP target file that runs the test binary as the
// server mutant over streamable HTTP (a process: section, on a port
// idemspec picks on loopback), keeping its state in statePath so that it
// survives restarts. The test's TestMain must call ServeIfAsked.
func SelfHTTPFile(mutant, statePath string) []byte {
	return fmt.Appendf(nil, `name: %s
mcp:
  url: http://127.0.0.1:{{.Port}}/mcp
process:
  command: %q
  env:
    %s: %q
    %s: %q
    %s: "127.0.0.1:{{.Port}}"
  stop_timeout: 5s
`, mutant, os.Args[0], ServeVar, mutant, StateVar, statePath, AddrVar)
}

// quote is s as one shell word.
func quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
