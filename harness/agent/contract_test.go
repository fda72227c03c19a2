package agent_test

import (
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness/agent"
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
