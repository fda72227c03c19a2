package agent_test

import (
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness/agent"
)

func setenv(t *testing.T, env []string) {
	t.Helper()
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		t.Setenv(name, value)
	}
}

// What idemspec gives a client over MCP is what the client reads back,
// and none of the HTTP contract's server variables are in it.
func TestMCPEnvironRoundTrip(t *testing.T) {
	in := agent.Inputs{Marker: "m", StateDir: "/tmp/s", RunID: "r", AttemptBudget: 3, Deadline: 3 * time.Second, AttemptTimeout: time.Second,
		ServerURL: "http://127.0.0.1:1", Payload: "ignored"}
	m := agent.MCP{Command: "idemspec serve --mcp --relay 127.0.0.1:1", CreateTool: "create_record", FindTool: "find_record", KeyArg: "idempotency_key", Arguments: `{"marker":"m"}`}
	env := m.Environ(in)
	for _, kv := range env {
		if strings.HasPrefix(kv, agent.EnvServerURL+"=") || strings.HasPrefix(kv, agent.EnvPayload+"=") {
			t.Errorf("%s given over MCP", kv)
		}
	}
	setenv(t, env)
	got, gotIn, err := agent.MCPFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if got != m || gotIn.Marker != "m" || gotIn.AttemptBudget != 3 || gotIn.Deadline != 3*time.Second || gotIn.Payload != m.Arguments {
		t.Fatalf("read back %+v %+v", got, gotIn)
	}
}

func TestMCPFromEnvSaysWhatIsMissing(t *testing.T) {
	for _, c := range []struct {
		env  []string
		want string
	}{
		{nil, "exactly one of IDEMSPEC_MCP_COMMAND and IDEMSPEC_MCP_URL"},
		{[]string{"IDEMSPEC_MCP_COMMAND=x", "IDEMSPEC_MCP_URL=y"}, "exactly one of"},
		{[]string{"IDEMSPEC_MCP_URL=y"}, "IDEMSPEC_MCP_CREATE_TOOL, IDEMSPEC_MCP_FIND_TOOL"},
		{[]string{"IDEMSPEC_MCP_URL=y", "IDEMSPEC_MCP_CREATE_TOOL=c", "IDEMSPEC_MCP_FIND_TOOL=f", "IDEMSPEC_MCP_KEY_ARG=k", "IDEMSPEC_MCP_ARGUMENTS={}"}, "IDEMSPEC_MARKER and IDEMSPEC_STATE_DIR"},
	} {
		for _, name := range []string{agent.EnvMCPCommand, agent.EnvMCPURL, agent.EnvMCPCreateTool, agent.EnvMCPFindTool, agent.EnvMCPKeyArg, agent.EnvMCPArguments, agent.EnvMarker, agent.EnvStateDir} {
			t.Setenv(name, "")
		}
		setenv(t, c.env)
		if _, _, err := agent.MCPFromEnv(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.env, err, c.want)
		}
	}
}
