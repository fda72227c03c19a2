package reports

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/idemspec/idemspec/harness/check"
)

// Merge makes one report of the reports of a suite's shards (`idemspec
// run --shard I/N` on N machines), as if one run had made it: every
// check once, in catalogue order operation by operation, counted again,
// each saying which shard ran it; run.shards lists the shards' runs.
// names are where the reports came from, for the errors. It refuses
// reports that are not one suite's shards: of another target file, by
// another idemspec version, with other flags that select or judge
// checks, a shard twice or a shard missing.
func Merge(runs []Report, names []string) (Report, error) {
	if len(runs) == 0 {
		return Report{}, errors.New("merge: no report")
	}
	name := func(i int) string {
		if i < len(names) {
			return names[i]
		}
		return fmt.Sprintf("report %d", i+1)
	}
	first := runs[0]
	for i, r := range runs {
		if r.Run.Shard == nil {
			return Report{}, fmt.Errorf("%s: not a shard's report (the run had no --shard): only the shards of one suite merge", name(i))
		}
		// The count and index size and index what follows.
		if err := r.Run.Shard.valid(); err != nil {
			return Report{}, fmt.Errorf("%s: run.shard: %w", name(i), err)
		}
		if err := sameSuite(first, r, name(0), name(i)); err != nil {
			return Report{}, err
		}
	}
	count := first.Run.Shard.Count
	byIndex := make([]int, count+1) // report index+1 of each shard
	for i, r := range runs {
		k := r.Run.Shard.Index
		if byIndex[k] != 0 {
			return Report{}, fmt.Errorf("%s and %s are both shard %d/%d: merge each shard once", name(byIndex[k]-1), name(i), k, count)
		}
		byIndex[k] = i + 1
	}
	var missing []string
	for k := 1; k <= count; k++ {
		if byIndex[k] == 0 {
			missing = append(missing, fmt.Sprintf("%d/%d", k, count))
		}
	}
	if len(missing) > 0 {
		if n := len(missing); n > maxNamed {
			missing = append(missing[:maxNamed], fmt.Sprintf("and %d more", n-maxNamed))
		}
		return Report{}, fmt.Errorf("shard %s missing: the merge needs the reports of all %d shards of the suite", strings.Join(missing, ", "), count)
	}

	out := Report{Schema: first.Schema, Tool: first.Tool, Target: first.Target}
	out.Run = Run{LabelFilter: first.Run.LabelFilter, Strict: first.Run.Strict, Complete: true, Seed: first.Run.Seed}
	var ids, incomplete []string
	var end time.Time
	seen := map[string]string{}
	for k := 1; k <= count; k++ {
		i := byIndex[k] - 1
		r := runs[i]
		shard := ShardRun{Index: k, ID: r.Run.ID, Seed: r.Run.Seed, Started: r.Run.Started, DurationMS: r.Run.DurationMS,
			Complete: r.Run.Complete, Incomplete: r.Run.Incomplete}
		for _, c := range r.Checks {
			if other, dup := seen[c.Label()]; dup {
				return Report{}, fmt.Errorf("%s and %s both hold check %s: they are not shards of one suite", other, name(i), c.Label())
			}
			seen[c.Label()] = name(i)
			c.Shard = k
			out.Checks = append(out.Checks, c)
			shard.Checks = append(shard.Checks, c.Label())
		}
		out.Run.Shards = append(out.Run.Shards, shard)
		out.Tools = append(out.Tools, r.Tools...)
		ids = append(ids, r.Run.ID)
		if r.Run.Seed != out.Run.Seed {
			out.Run.Seed = 0 // no one seed: each shard's is in run.shards
		}
		if !r.Run.Complete {
			out.Run.Complete = false
			incomplete = append(incomplete, fmt.Sprintf("shard %d/%d: %s", k, count, r.Run.Incomplete))
		}
		if out.Run.Started.IsZero() || r.Run.Started.Before(out.Run.Started) {
			out.Run.Started = r.Run.Started
		}
		if e := r.Run.Started.Add(time.Duration(r.Run.DurationMS * float64(time.Millisecond))); e.After(end) {
			end = e
		}
	}
	// A shard that never started holds the selected checks alone, so
	// the count is a test of complete shards only.
	if want := first.Run.Shard.Checks; out.Run.Complete && len(out.Checks) != want {
		return Report{}, fmt.Errorf("the %d shards hold %d checks, and the suite %d: they are not the shards of one suite", count, len(out.Checks), want)
	}
	out.Run.ID = strings.Join(ids, "+")
	out.Run.Incomplete = strings.Join(incomplete, "; ")
	out.Run.DurationMS = MS(end.Sub(out.Run.Started))
	ops := first.Run.Shard.Operations
	slices.SortStableFunc(out.Checks, func(a, b CheckResult) int {
		return cmp.Or(cmp.Compare(slices.Index(ops, a.Operation), slices.Index(ops, b.Operation)), check.CompareID(a.ID, b.ID))
	})
	out.Summary = summarize(out.Checks)
	acc, err := mergeAcceptance(runs, name)
	if err != nil {
		return Report{}, err
	}
	out.Acceptance = acc
	return out, nil
}

// mergeAcceptance joins what each shard made of the one accepted-findings
// file: an entry expired in any shard is expired; else applied in any,
// applied; else stale in any (its check passed wherever it ran), stale.
func mergeAcceptance(runs []Report, name func(int) string) (*AcceptanceRun, error) {
	var out *AcceptanceRun
	rank := map[string]int{AcceptUnused: 0, AcceptStale: 1, AcceptApplied: 2, AcceptExpired: 3}
	for i, r := range runs {
		a := r.Acceptance
		if out == nil && a != nil && i == 0 {
			out = &AcceptanceRun{File: a.File, Entries: slices.Clone(a.Entries)}
			continue
		}
		same := (out == nil) == (a == nil)
		if same && a != nil {
			same = len(a.Entries) == len(out.Entries)
			for k := 0; same && k < len(a.Entries); k++ {
				same = a.Entries[k].Acceptance == out.Entries[k].Acceptance
			}
		}
		if !same {
			return nil, fmt.Errorf("%s and %s ran with different accepted-findings files (--accept): run every shard with the same one", name(0), name(i))
		}
		if a == nil {
			continue
		}
		for k, e := range a.Entries {
			if rank[e.State] > rank[out.Entries[k].State] {
				out.Entries[k] = e
			}
		}
	}
	return out, nil
}

// maxNamed is how many missing shards an error names before it counts
// the rest: the error stays one short line.
const maxNamed = 10

// sameSuite says why b is not a shard of a's suite, if it is not.
func sameSuite(a, b Report, an, bn string) error {
	sa, sb := a.Run.Shard, b.Run.Shard
	switch {
	case a.Tool.Version != b.Tool.Version:
		return fmt.Errorf("%s was written by idemspec %s and %s by idemspec %s: run every shard with the same idemspec", an, a.Tool.Version, bn, b.Tool.Version)
	case a.Target.Digest != b.Target.Digest || (a.Target.Digest == "" && a.Target.Source != b.Target.Source):
		return fmt.Errorf("%s tested %s and %s tested %s: run every shard with the same target file", an, targetText(a.Target), bn, targetText(b.Target))
	case sa.Count != sb.Count:
		return fmt.Errorf("%s is shard %s and %s shard %s: run every shard with the same COUNT", an, sa, bn, sb)
	case !slices.Equal(sa.Operations, sb.Operations) || sa.Checks != sb.Checks:
		return fmt.Errorf("%s and %s sliced different suites (operations %q, %d checks; operations %q, %d checks): run every shard with the same --operation and the same catalogue",
			an, bn, sa.Operations, sa.Checks, sb.Operations, sb.Checks)
	case a.Run.LabelFilter != b.Run.LabelFilter:
		return fmt.Errorf("%s ran --label-filter %q and %s %q: run every shard with the same filter", an, a.Run.LabelFilter, bn, b.Run.LabelFilter)
	case a.Run.Strict != b.Run.Strict:
		return fmt.Errorf("%s ran with strict %t and %s with strict %t: run every shard with the same --strict", an, a.Run.Strict, bn, b.Run.Strict)
	}
	return nil
}

// targetText names a target file by its path and the start of its
// digest (a built-in fake by its name).
func targetText(t Target) string {
	if t.Digest == "" {
		return t.Source
	}
	return fmt.Sprintf("%s (sha256 %.12s)", t.Source, t.Digest)
}

// ShardLines say, one line per shard, which checks each shard ran: for
// the Markdown and HTML reports of a sharded or merged run (none for a
// whole run).
func (r Report) ShardLines() []string {
	if s := r.Run.Shard; s != nil {
		labels := make([]string, 0, len(r.Checks))
		for _, c := range r.Checks {
			labels = append(labels, c.Label())
		}
		return []string{fmt.Sprintf("shard %s of the suite's %d checks: %s", s, s.Checks, strings.Join(labels, ", "))}
	}
	var out []string
	for _, s := range r.Run.Shards {
		line := fmt.Sprintf("shard %d/%d (run %s, seed %d", s.Index, len(r.Run.Shards), s.ID, s.Seed)
		if !s.Complete {
			line += ", incomplete"
		}
		out = append(out, line+"): "+strings.Join(s.Checks, ", "))
	}
	return out
}
