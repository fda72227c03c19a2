package agent_test

import (
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness/agent"
	"github.com/idemspec/idemspec/harness/check"
	// The catalogue of checks is registered by the package that defines them.
	_ "github.com/idemspec/idemspec/scenarios"
)

func TestInputsRoundTripThroughTheEnvironment(t *testing.T) {
	in := agent.Inputs{
		ServerURL: "http://127.0.0.1:1", CreatePath: "/resources", LookupPath: "/idempotency-keys/{key}",
		KeyHeader: "Idempotency-Key", Payload: `{"marker":"m"}`, Marker: "m", StateDir: t.TempDir(), RunID: "r",
		AttemptBudget: 3, Deadline: 2 * time.Second, AttemptTimeout: 250 * time.Millisecond,
	}
	for _, kv := range in.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	got, err := agent.FromEnv()
	if err != nil || got != in {
		t.Fatalf("FromEnv: %+v, %v; want %+v", got, err, in)
	}
}

func TestFromEnvNamesWhatIsWrong(t *testing.T) {
	in := agent.Inputs{
		ServerURL: "http://127.0.0.1:1", CreatePath: "/resources", LookupPath: "/k/{key}", KeyHeader: "K",
		Payload: "{}", Marker: "m", StateDir: "/tmp", AttemptBudget: 1, Deadline: time.Second, AttemptTimeout: time.Second,
	}
	cases := []struct{ name, value, want string }{
		{agent.EnvServerURL, "", agent.EnvServerURL + " not set"},
		{agent.EnvAttemptBudget, "0", agent.EnvAttemptBudget},
		{agent.EnvDeadline, "soon", agent.EnvDeadline},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, kv := range in.Environ() {
				k, v, _ := strings.Cut(kv, "=")
				t.Setenv(k, v)
			}
			t.Setenv(tc.name, tc.value)
			if _, err := agent.FromEnv(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one naming %s", err, tc.want)
			}
		})
	}
}

// Each mutant client is the reference plus one bug, caught by one client
// check; every client check has a mutant that it catches.
func TestMutantClientsCoverTheClientChecks(t *testing.T) {
	caught := map[string]string{}
	for _, m := range agent.Mutants() {
		if len(m.Catches) != 1 || m.Bug == "" {
			t.Errorf("%s: catches %v, bug %q", m.Name, m.Catches, m.Bug)
		}
		for _, id := range m.Catches {
			if c, ok := check.Get(id); !ok || c.Group != "client" {
				t.Errorf("%s: %s is not a client check", m.Name, id)
			}
			caught[id] = m.Name
		}
		if got, err := agent.LookupMutant(m.Name); err != nil || got.Name != m.Name {
			t.Errorf("LookupMutant(%s): %v, %v", m.Name, got, err)
		}
	}
	for _, c := range check.All() {
		if c.Group == "client" && caught[c.ID] == "" {
			t.Errorf("no mutant client is caught by %s", c.ID)
		}
	}
	if _, err := agent.LookupMutant("no-such-bug"); err == nil {
		t.Error("an unknown bug is not an error")
	}
	if m, err := agent.LookupMutant(""); err != nil || m.Name != agent.Reference {
		t.Errorf(`LookupMutant(""): %v, %v`, m, err)
	}
}
