package scenarios_test

import (
	"fmt"
	"testing"

	"github.com/idemspec/idemspec/reports"
	"github.com/idemspec/idemspec/scenarios"
)

// TestShardsPartTheSuite: for any number of shards, every server check
// of every operation runs in exactly one shard, P1 and P2 (one search)
// in the same, the searches of successive operations in successive
// shards, and the shards' sizes within a unit of each other.
func TestShardsPartTheSuite(t *testing.T) {
	for _, ops := range [][]string{{""}, {"create", "capture", "refund"}} {
		for n := 1; n <= 7; n++ {
			t.Run(fmt.Sprintf("%d operations, %d shards", len(ops), n), func(t *testing.T) {
				owner := map[string]int{}
				sizes := make([]int, n+1)
				for i := 1; i <= n; i++ {
					s := scenarios.SliceSuite(reports.Shard{Index: i, Count: n}, ops)
					if s.Checks != len(ops)*len(serverChecks()) {
						t.Fatalf("the suite's checks: %d, want %d", s.Checks, len(ops)*len(serverChecks()))
					}
					for _, op := range ops {
						for _, c := range serverChecks() {
							if !scenarios.InShard(&s, op, c.ID) {
								continue
							}
							key := op + " " + c.ID
							if prev, ok := owner[key]; ok {
								t.Errorf("%s runs in shards %d and %d", key, prev, i)
							}
							owner[key] = i
							sizes[i]++
						}
					}
				}
				for _, op := range ops {
					for _, c := range serverChecks() {
						if owner[op+" "+c.ID] == 0 {
							t.Errorf("%s %s runs in no shard", op, c.ID)
						}
					}
					if owner[op+" P1"] != owner[op+" P2"] {
						t.Errorf("%s: P1 in shard %d, P2 in %d: they share one search", op, owner[op+" P1"], owner[op+" P2"])
					}
				}
				// The slowest unit, the property search, goes round the
				// shards, one operation after another.
				searches := map[int]bool{}
				for _, op := range ops {
					searches[owner[op+" P1"]] = true
				}
				if want := min(n, len(ops)); len(searches) != want {
					t.Errorf("the %d operations' searches run in shards %v, want %d shards", len(ops), searches, want)
				}
				lo, hi := sizes[1], sizes[1]
				for _, k := range sizes[1:] {
					lo, hi = min(lo, k), max(hi, k)
				}
				// A unit is one check, or two (P1 and P2) per operation.
				if hi-lo > 1+len(ops) {
					t.Errorf("shard sizes %v: dealt unevenly", sizes[1:])
				}
			})
		}
	}
	if !scenarios.InShard(nil, "", "S4") {
		t.Error("no shard: the whole suite")
	}
}

// serverChecks are the checks `idemspec run` runs.
func serverChecks() []*scenarios.Check {
	var out []*scenarios.Check
	for _, c := range scenarios.Checks() {
		if c.Group != "client" && c.Group != "workflow" {
			out = append(out, c)
		}
	}
	return out
}
