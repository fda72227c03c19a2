package reports

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Shard says which slice of the suite a run ran: `idemspec run --shard
// INDEX/COUNT`. The COUNT shards of one suite together run each check
// once; `idemspec report --merge` makes their reports one.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
	// Operations are the operations the whole suite drives, in the
	// target file's order ([""] for a file with one create): the shards
	// of one suite share them, and the merge orders by them.
	Operations []string `json:"operations"`
	// Checks is how many checks the whole suite holds, over every
	// shard, so a merge can tell that none is missing.
	Checks int `json:"checks"`
}

// MaxShards is the most shards a suite is cut into: GitHub Actions
// runs at most 256 jobs of one matrix, and a suite holds a few hundred
// checks at most, so more shards would run nothing. A merge refuses a
// report that claims more, before it allocates anything by the count.
const MaxShards = 256

// ParseShard reads INDEX/COUNT, with 1 <= INDEX <= COUNT <= MaxShards.
// The error says what is wrong with s; the caller names the flag or
// the variable it came from.
func ParseShard(s string) (Shard, error) {
	i, n, ok := strings.Cut(s, "/")
	index, err1 := strconv.Atoi(strings.TrimSpace(i))
	count, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("want INDEX/COUNT, e.g. 2/4")
	}
	sh := Shard{Index: index, Count: count}
	return sh, sh.valid()
}

// valid says why s is not a shard of a suite, if it is not.
func (s Shard) valid() error {
	if s.Count < 1 || s.Count > MaxShards || s.Index < 1 || s.Index > s.Count {
		return fmt.Errorf("INDEX/COUNT %d/%d: INDEX must be between 1 and COUNT, COUNT between 1 and %d", s.Index, s.Count, MaxShards)
	}
	return nil
}

// String is INDEX/COUNT.
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Deal says whether the k-th unit (from 0) of the op-th operation (from
// 0, in the target file's order) belongs to shard s. The units of each
// operation are dealt like cards, and each operation's deal starts one
// shard further on, so every shard gets a share of every operation and
// the slow checks (a property search, a restart) go round the shards
// rather than all to one. The slice is the same on every machine that
// has the same target file and catalogue. The zero Shard holds all.
func (s Shard) Deal(op, k int) bool {
	return s.Count <= 1 || (op+k)%s.Count == s.Index-1
}

// ShardRun is one shard's run, as a merged report lists them.
type ShardRun struct {
	Index      int       `json:"index"`
	ID         string    `json:"id"`
	Seed       int64     `json:"seed"`
	Started    time.Time `json:"started"`
	DurationMS float64   `json:"duration_ms"`
	Complete   bool      `json:"complete"`
	Incomplete string    `json:"incomplete,omitempty"`
	// Checks are the labels of the checks the shard ran ("S4 [create]").
	Checks []string `json:"checks"`
}
