package harness_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/harness"
)

// TestEveryPageCountsAgainstTheBudget: a list oracle that reads three
// pages sends three requests through the run's gate, and a budget too
// small for every page makes the reading an error, never a count of the
// pages it could afford.
func TestEveryPageCountsAgainstTheBudget(t *testing.T) {
	target, err := fakes.StartTarget("fake:reference?page_size=1&page_style=cursor")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { target.Close() })
	for i := range 3 {
		req, err := target.NewCreate(context.Background(), fmt.Sprintf("key-%d", i), []byte(`{"marker":"m","amount":1}`))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := target.Direct.Do(req)
		if err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("create %d: %v %v", i, resp, err)
		}
		resp.Body.Close()
	}

	for _, tc := range []struct {
		budget int
		ok     bool
	}{{budget: 3, ok: true}, {budget: 2}} {
		s := harness.DefaultSettings()
		s.Limits.Budget = tc.budget
		env, err := harness.New(target, s)
		if err != nil {
			t.Fatal(err)
		}
		obs, err := env.Observe(context.Background(), "m")
		env.Close()
		switch {
		case tc.ok && (err != nil || obs.Count != 3 || env.Sent() != 3):
			t.Errorf("budget %d: observed %+v, %v after %d requests: want 3 resources on 3 pages, 3 requests", tc.budget, obs, err, env.Sent())
		case !tc.ok && (!errors.Is(err, harness.ErrBudget) || env.Refused() != 1):
			t.Errorf("budget %d: error %v, %d refused: want the budget's error on page 3", tc.budget, err, env.Refused())
		}
	}
}
