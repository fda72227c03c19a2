package agent_test

import (
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness/agent"
)

func TestInputsRoundTripThroughTheEnvironment(t *testing.T) {
	for _, key := range []struct{ in, name, header string }{
		{"header", "Idempotency-Key", "Idempotency-Key"},
		{"body", "idempotency_key", ""},
		{"query", "idempotency_key", ""},
	} {
		in := agent.Inputs{
			ServerURL: "http://127.0.0.1:1", CreatePath: "/resources", LookupPath: "/idempotency-keys/{key}",
			KeyIn: key.in, KeyName: key.name, KeyHeader: key.header,
			Payload: `{"marker":"m"}`, Marker: "m", StateDir: t.TempDir(), RunID: "r",
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
}

// An idemspec that predates IDEMSPEC_KEY_IN sets only the header.
func TestFromEnvReadsAnOlderHeaderOnlyEnvironment(t *testing.T) {
	in := agent.Inputs{
		ServerURL: "http://127.0.0.1:1", CreatePath: "/resources", LookupPath: "/k/{key}", KeyHeader: "K",
		Payload: "{}", Marker: "m", StateDir: "/tmp", AttemptBudget: 1, Deadline: time.Second, AttemptTimeout: time.Second,
	}
	for _, kv := range in.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	t.Setenv(agent.EnvKeyIn, "")
	t.Setenv(agent.EnvKeyName, "")
	got, err := agent.FromEnv()
	if err != nil || got.KeyIn != "header" || got.KeyName != "K" {
		t.Fatalf("FromEnv: key in %q name %q, %v; want header K", got.KeyIn, got.KeyName, err)
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
