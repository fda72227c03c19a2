package harness_test

import (
	"context"
	"errors"
	"testing"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/targets"
)

func TestLookupKnowsASentKeyAndNotAFreshOne(t *testing.T) {
	env, _ := newEnv(t)
	ctx := context.Background()
	h := &history.History{}
	key := env.NewKey()
	if x := env.Lookup(ctx, h, "before", key); x.Outcome != history.OK || x.Status != 404 {
		t.Fatalf("fresh key: %s %d %s", x.Outcome, x.Status, x.Error)
	}
	body, _ := env.Body(env.NewMarker("lookup"), "1")
	if x := env.Send(ctx, h, harness.Attempt{Step: "create", Lane: env.Clean, Key: key, Body: body}); !x.Is2xx() {
		t.Fatalf("create: %d %s", x.Status, x.Error)
	}
	x := env.Lookup(ctx, h, "after", key)
	if x.Outcome != history.OK || x.Status != 200 || x.Lane != "direct" || x.Key != key {
		t.Fatalf("sent key: %+v", x)
	}
	if h.Len() != 3 || h.Exchanges()[2].Seq != 3 {
		t.Errorf("look-ups are not recorded in the history: %d exchanges", h.Len())
	}
}

func TestLookupWithoutAPathFails(t *testing.T) {
	env, _ := newEnv(t)
	env.Target.LookupPath = ""
	x := env.Lookup(context.Background(), &history.History{}, "lookup", env.NewKey())
	if x.Outcome != history.Failed || x.Error != targets.ErrNoLookup.Error() {
		t.Errorf("got %s %q", x.Outcome, x.Error)
	}
	if _, _, err := env.Target.LookupKey(context.Background(), "k"); !errors.Is(err, targets.ErrNoLookup) {
		t.Errorf("LookupKey: %v", err)
	}
}
