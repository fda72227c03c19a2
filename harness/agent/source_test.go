package agent_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness/agent"
)

var ownAPI = agent.OwnAPI{
	CreatePath: "/resources", LookupPath: "/idempotency-keys/{key}", KeyHeader: "Idempotency-Key",
	Payload: `{"name":"n","amount":1}`, CreateTool: "create", FindTool: "find", KeyArg: "key",
	Arguments: `{"amount":1}`, Operation: "op",
}

// setContract sets every contract variable to something the own source
// must not take.
func setContract(t *testing.T) {
	poison := agent.Inputs{
		ServerURL: "http://127.0.0.1:9", CreatePath: "/poison", LookupPath: "/poison/{key}", KeyIn: "query", KeyName: "p",
		Payload: `{"marker":"poison"}`, Marker: "poison", StateDir: "/poison", RunID: "poison",
		AttemptBudget: 9, Deadline: time.Millisecond, AttemptTimeout: time.Millisecond,
	}
	for _, kv := range (agent.MCP{URL: "http://127.0.0.1:9", CreateTool: "p", FindTool: "p", KeyArg: "p", Arguments: "{}"}).Environ(poison) {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	for _, kv := range poison.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
}

func TestOwnSourceReadsOnlyItsVariable(t *testing.T) {
	setContract(t)
	t.Setenv("API_URL", "http://127.0.0.1:4242/")
	dir := t.TempDir()
	own := agent.Own{BaseURLEnv: "API_URL", API: ownAPI, Dir: dir, AttemptBudget: 3, Deadline: 10 * time.Second, AttemptTimeout: 2 * time.Second}
	got, err := own.HTTP()
	want := agent.Inputs{
		ServerURL: "http://127.0.0.1:4242", CreatePath: "/resources", LookupPath: "/idempotency-keys/{key}",
		KeyIn: agent.KeyInHeader, KeyName: "Idempotency-Key", KeyHeader: "Idempotency-Key",
		Payload: ownAPI.Payload, Marker: "op", StateDir: dir,
		AttemptBudget: 3, Deadline: 10 * time.Second, AttemptTimeout: 2 * time.Second,
	}
	if err != nil || got != want {
		t.Fatalf("HTTP: %+v, %v; want %+v", got, err, want)
	}

	t.Setenv("MCP_URL", "http://127.0.0.1:4343/mcp")
	own.BaseURLEnv, own.MCPURLEnv = "", "MCP_URL"
	m, in, err := own.MCP()
	wantM := agent.MCP{URL: "http://127.0.0.1:4343/mcp", CreateTool: "create", FindTool: "find", KeyArg: "key", Arguments: ownAPI.Arguments}
	if err != nil || m != wantM || in.Payload != ownAPI.Arguments || in.StateDir != dir || in.Marker != "op" || in.AttemptBudget != 3 {
		t.Fatalf("MCP: %+v %+v, %v; want %+v", m, in, err, wantM)
	}
}

// The default directory is the working directory, made absolute: the
// journal stays put if the agent changes directory.
func TestOwnSourceKeepsStateInTheWorkingDirectory(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("API_URL", "http://127.0.0.1:4242")
	in, err := agent.Own{BaseURLEnv: "API_URL", API: ownAPI, Dir: ".", AttemptBudget: 1, Deadline: time.Second, AttemptTimeout: time.Second}.HTTP()
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if in.StateDir != wd || !filepath.IsAbs(in.StateDir) {
		t.Fatalf("StateDir %q, want %q", in.StateDir, wd)
	}
}

func TestOwnSourceErrorsNameTheVariable(t *testing.T) {
	setContract(t)
	t.Setenv("API_URL", "")
	t.Setenv("NOT_A_URL", "127.0.0.1:80")
	t.Setenv("GOOD_URL", "http://127.0.0.1:80")
	ok := agent.Own{API: ownAPI, Dir: ".", AttemptBudget: 1, Deadline: time.Second, AttemptTimeout: time.Second}
	for _, c := range []struct {
		own  func(agent.Own) agent.Own
		mcp  bool
		want string
	}{
		{func(o agent.Own) agent.Own { o.BaseURLEnv = "API_URL"; return o }, false, "API_URL is not set: it holds the API's base URL"},
		{func(o agent.Own) agent.Own { o.BaseURLEnv = "NOT_A_URL"; return o }, false, `NOT_A_URL="127.0.0.1:80": want the API's base URL`},
		{func(o agent.Own) agent.Own { return o }, true, "one of them"},
		{func(o agent.Own) agent.Own { o.MCPCommandEnv = "API_URL"; return o }, true, "API_URL is not set: it holds the command that starts the MCP server"},
		{func(o agent.Own) agent.Own { o.BaseURLEnv = "GOOD_URL"; o.AttemptBudget = 0; return o }, false, "attempts 0"},
	} {
		o := c.own(ok)
		var err error
		if c.mcp {
			_, _, err = o.MCP()
		} else {
			_, err = o.HTTP()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", o, err, c.want)
		}
	}
}
