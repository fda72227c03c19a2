package reports

import (
	"fmt"
	"slices"

	"github.com/idemspec/idemspec/harness/check"
)

// valid says which field of a report read from a file idemspec could
// not have written, if one is: a verdict or a level it does not know, a
// shard outside 1..COUNT or COUNT past MaxShards, a summary that does
// not count the checks. A report is data from outside (a CI artifact,
// another machine's shard), and what the writers and the merge count
// and index by must be what idemspec writes: an unknown verdict would
// merge into counts that do not add up (18 of 19), a shard index of -1
// would panic.
func (r Report) valid() error {
	if s := r.Run.Shard; s != nil {
		if err := s.valid(); err != nil {
			return fmt.Errorf("run.shard: %w", err)
		}
	}
	for i, s := range r.Run.Shards {
		if s.Index < 1 || s.Index > len(r.Run.Shards) {
			return fmt.Errorf("run.shards[%d].index %d: want 1 to %d, the number of shards", i, s.Index, len(r.Run.Shards))
		}
	}
	if len(r.Run.Shards) > MaxShards {
		return fmt.Errorf("run.shards: %d shards, at most %d", len(r.Run.Shards), MaxShards)
	}
	for i, c := range r.Checks {
		if err := knownVerdict(c.Verdict); err != nil {
			return fmt.Errorf("checks[%d].verdict: %w", i, err)
		}
		if (c.Verdict == check.ACCEPTED) != (c.Accepted != nil) {
			return fmt.Errorf("checks[%d].accepted: an ACCEPTED verdict, and only one, says what it accepted", i)
		}
		if a := c.Accepted; a != nil && a.Was != check.FAIL && a.Was != check.WARN {
			return fmt.Errorf("checks[%d].accepted.was %q: want FAIL or WARN", i, a.Was)
		}
		if !slices.Contains([]check.Level{check.MUST, check.SHOULD, check.MAY}, c.Level) {
			return fmt.Errorf("checks[%d].level %q: want MUST, SHOULD or MAY", i, c.Level)
		}
		if c.Shard < 0 || c.Shard > MaxShards {
			return fmt.Errorf("checks[%d].shard %d: want 0 (not sharded) to %d", i, c.Shard, MaxShards)
		}
	}
	for i, t := range r.Tools {
		// A tool no check judged has no verdict; one whose audit was cut
		// short is NOT AUDITED.
		if err := knownVerdict(t.Verdict); t.Verdict != "" && t.Verdict != NotAudited && err != nil {
			return fmt.Errorf("tools[%d].verdict: %w", i, err)
		}
	}
	if want := summarize(r.Checks); r.Summary.withoutText() != want {
		return fmt.Errorf("summary %s: the checks hold %s", r.Summary.counts(), want.counts())
	}
	return nil
}

func knownVerdict(s check.Status) error {
	if !slices.Contains(findingOrder, s) {
		return fmt.Errorf("%q is not a verdict (PASS, FAIL, WARN, SKIP, ERROR or ACCEPTED)", s)
	}
	return nil
}

func (s Summary) withoutText() Summary { s.Text = ""; return s }

func (s Summary) counts() string {
	return fmt.Sprintf("(total %d: %d pass, %d fail, %d warn, %d skip, %d error, %d accepted)", s.Total, s.Pass, s.Fail, s.Warn, s.Skip, s.Error, s.Accepted)
}
