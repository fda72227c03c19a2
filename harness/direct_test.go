package harness_test

import (
	"context"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/history"
)

// A DirectLane reaches the target without the proxy, for sends and
// bursts alike, and refuses faults instead of pretending to carry them.
func TestDirectLaneSkipsTheProxyAndRefusesFaults(t *testing.T) {
	env, in := newEnv(t)
	direct := harness.DirectLane(env.Clean.Upstream)
	if direct.Addr != in.Addr || direct.Addr == env.Clean.Addr {
		t.Fatalf("direct lane dials %s; the fake is at %s, the clean proxy at %s", direct.Addr, in.Addr, env.Clean.Addr)
	}
	ctx := context.Background()
	h := &history.History{}
	body, _ := env.Body(env.NewMarker("direct"), "1")
	key := env.NewKey()
	if x := env.Send(ctx, h, harness.Attempt{Step: "send", Lane: direct, Key: key, Body: body}); x.Status != 201 || x.Lane != "direct" {
		t.Fatalf("send on the direct lane: %+v", x)
	}
	b, sends, err := env.Burst(ctx, h, harness.BurstSpec{Step: "burst", Lane: direct, Key: key, Body: body, Size: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range sends {
		if x.Status != 200 && x.Status != 201 {
			t.Errorf("burst on the direct lane: %s answered %d, want the replay", x.Step, x.Status)
		}
	}
	if b.Lane != "direct" || !b.ArrivalKnown {
		t.Errorf("burst record %+v", b)
	}
	remove, err := direct.Apply(harness.ResponseLoss{})
	if err == nil || !strings.Contains(err.Error(), "no proxy") {
		t.Errorf("Apply on the direct lane: %v, want a refusal", err)
	}
	remove()
	if direct.Fault() != "" {
		t.Errorf("refused fault recorded on the lane: %q", direct.Fault())
	}
}
