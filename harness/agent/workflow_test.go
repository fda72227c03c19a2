package agent_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness/agent"
)

func TestJobRoundTripsThroughTheEnvironment(t *testing.T) {
	j := agent.Job{
		Inputs: agent.Inputs{
			ServerURL: "http://127.0.0.1:1", KeyIn: "header", KeyName: "Idempotency-Key", KeyHeader: "Idempotency-Key",
			Marker: "m", StateDir: t.TempDir(), RunID: "r", AttemptBudget: 3, Deadline: 2 * time.Second, AttemptTimeout: 250 * time.Millisecond,
		},
		Steps: []agent.Step{
			{Name: "upload", Method: "PUT", Path: "/uploads/m/cover.png", Body: "{}", ID: "path"},
			{Name: "record", Method: "POST", Path: "/resources", Body: `{"marker":"m"}`, Keyed: true, Creates: true, Lookup: "/idempotency-keys/{key}", ID: "id"},
			{Name: "read", Method: "GET", Path: "/resources/{record}", ID: "id"},
		},
	}
	for _, kv := range j.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
		if k == agent.EnvPayload || k == agent.EnvCreatePath {
			t.Errorf("a job's environment holds the create shape's %s", k)
		}
	}
	if agent.Shape() != agent.ShapeWorkflow {
		t.Fatalf("shape %q", agent.Shape())
	}
	got, err := agent.JobFromEnv()
	if err != nil || !reflect.DeepEqual(got, j) {
		t.Fatalf("JobFromEnv: %+v, %v; want %+v", got, err, j)
	}
	if p := agent.Fill(j.Steps[2].Path, map[string]string{"record": "res_1"}); p != "/resources/res_1" {
		t.Errorf("Fill: %s", p)
	}
	t.Setenv(agent.EnvSteps, `[{"name":"record","method":"POST","path":"/resources","keyed":true}]`)
	if _, err := agent.JobFromEnv(); err == nil || !strings.Contains(err.Error(), "look-up") {
		t.Errorf("a keyed step without a look-up: %v", err)
	}
}
