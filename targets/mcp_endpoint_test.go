package targets_test

import (
	"strings"
	"testing"

	"github.com/idemspec/idemspec/targets"
)

// TestMCPStdioSecrets: the values of ${NAME} in mcp.env and mcp.command
// are secrets; mcp.env is expanded, the command left for sh; a default
// (${NAME:-x}) is no secret; an unset variable is an error naming file,
// line and field.
func TestMCPStdioSecrets(t *testing.T) {
	t.Setenv("IDEMSPEC_TEST_CMD_SECRET", "cmd-secret-0123456789")
	t.Setenv("IDEMSPEC_TEST_ENV_SECRET", "env-secret-0123456789")
	t.Setenv("IDEMSPEC_TEST_EMPTY", "")
	s, err := targets.ParseMCPStdio("m.yaml", []byte(`mcp:
  command: server --token ${IDEMSPEC_TEST_CMD_SECRET} --mode ${IDEMSPEC_TEST_EMPTY:-default-mode-value} ${#IGNORED}
  env:
    A: "x ${IDEMSPEC_TEST_ENV_SECRET}"
`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Env["A"] != "x env-secret-0123456789" {
		t.Errorf("mcp.env.A = %q, want it expanded", s.Env["A"])
	}
	got := s.Secrets.Redact("cmd-secret-0123456789 env-secret-0123456789 default-mode-value")
	if got != "[redacted] [redacted] default-mode-value" {
		t.Errorf("redacted %q", got)
	}
	for _, c := range []struct{ file, want string }{
		{"mcp:\n  command: server\n  env:\n    A: ${IDEMSPEC_TEST_UNSET}\n", `m.yaml:4: mcp.env.A: environment variable "IDEMSPEC_TEST_UNSET" is not set`},
		{"mcp:\n  command: server ${IDEMSPEC_TEST_UNSET}\n", `m.yaml:2: mcp.command: environment variable "IDEMSPEC_TEST_UNSET" is not set`},
	} {
		if _, err := targets.ParseMCPStdio("m.yaml", []byte(c.file)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.file, err, c.want)
		}
	}
	if _, err := targets.CommandSecrets("server ${IDEMSPEC_TEST_UNSET}"); err == nil || !strings.Contains(err.Error(), "--cmd") {
		t.Errorf("--cmd with an unset variable: %v", err)
	}
}
