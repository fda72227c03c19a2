package scenarios

import (
	"slices"

	"github.com/idemspec/idemspec/reports"
)

// A suite's shards (`idemspec run --shard I/N`) part its checks between
// machines. The units are the suite's server checks, operation by
// operation in the target file's order and then in catalogue order,
// dealt to the shards like cards, each operation's deal one shard on
// (reports.Shard.Deal): the slice depends
// on the target file and the catalogue alone, never on the seed, so N
// machines with the same binary and file run every check once.

// unitOf is the part of the suite a check cannot be parted from: P1 and
// P2 judge one property search (sharedSearch), so they go to one shard
// together rather than each searching on a machine of its own.
func unitOf(c *Check) string {
	if c.Group == "property" {
		return c.Group
	}
	return c.ID
}

// units lists the units of the server checks of one operation.
func units() []string {
	var out []string
	for _, c := range Checks() {
		if u := unitOf(c); !ofClientMode(c.Group) && !slices.Contains(out, u) {
			out = append(out, u)
		}
	}
	return out
}

// SliceSuite completes shard s for a suite of operations ops ([""] for
// a target file with one create): the operations and the number of
// checks of the whole suite, which the report carries so that a merge
// can tell the shards of one suite.
func SliceSuite(s reports.Shard, ops []string) reports.Shard {
	s.Operations = slices.Clone(ops)
	s.Checks = 0
	for range ops {
		for _, c := range Checks() {
			if !ofClientMode(c.Group) {
				s.Checks++
			}
		}
	}
	return s
}

// InShard reports whether shard s (nil: the whole suite) runs check id
// of operation op.
func InShard(s *reports.Shard, op, id string) bool {
	if s == nil || s.Count <= 1 {
		return true
	}
	c, ok := Lookup(id)
	if !ok {
		return false
	}
	return s.Deal(slices.Index(s.Operations, op), slices.Index(units(), unitOf(c)))
}
