package reports_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/reports"
)

// shardReports are a suite of two operations and three checks each, run
// as N shards: check k of operation o dealt to shard (o+k)%N+1, each
// shard's report built as `idemspec run --shard` builds it.
func shardReports(n int, verdict func(op, id string) check.Status) []reports.Report {
	ops, ids := []string{"create", "capture"}, []string{"K1", "S2", "S10"}
	var out []reports.Report
	for i := 1; i <= n; i++ {
		s := &reports.Shard{Index: i, Count: n, Operations: ops, Checks: len(ops) * len(ids)}
		var cs []reports.CheckResult
		for o, op := range ops {
			for k, id := range ids {
				if s.Deal(o, k) {
					cs = append(cs, reports.CheckResult{Entry: check.Entry{ID: id, Title: "should " + id, Level: check.MUST, Group: "g"},
						Operation: op, Verdict: verdict(op, id), DurationMS: 10})
				}
			}
		}
		run := reports.Run{ID: "run" + string(rune('0'+i)), Seed: 7, Started: t0.Add(time.Duration(i) * time.Second), DurationMS: 1000, Complete: true}
		out = append(out, reports.New(run, reports.Meta{Version: "v1.2.3", RunID: run.ID, Shard: s,
			Target: reports.Target{Name: "api", Source: "api.yaml", Digest: "ab12"}}, cs))
	}
	return out
}

func passing(string, string) check.Status { return check.PASS }

func TestMergeIsOneRun(t *testing.T) {
	failS2 := func(op, id string) check.Status {
		if op == "capture" && id == "S2" {
			return check.FAIL
		}
		return check.PASS
	}
	shards := shardReports(4, failS2)
	// The order of the files on the command line does not matter.
	shards[0], shards[3] = shards[3], shards[0]
	m, err := reports.Merge(shards, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range m.Checks {
		got = append(got, c.Label()+"@"+string(rune('0'+c.Shard)))
	}
	want := "K1 [create]@1 S2 [create]@2 S10 [create]@3 K1 [capture]@2 S2 [capture]@3 S10 [capture]@4"
	if strings.Join(got, " ") != want {
		t.Errorf("merged checks %v, want %s (operations in the file's order, then catalogue order; each its shard, each operation's deal one shard on)", got, want)
	}
	if m.Summary != (reports.Summary{Total: 6, Pass: 5, Fail: 1}) || m.ExitCode() != 1 {
		t.Errorf("summary %+v exit %d, want 6 checks, 1 fail, exit 1", m.Summary, m.ExitCode())
	}
	if m.Run.Shard != nil || len(m.Run.Shards) != 4 || m.Run.Shards[0].Index != 1 || m.Run.Shards[0].ID != "run1" ||
		m.Run.Shards[0].Checks[0] != "K1 [create]" || m.Run.Seed != 7 || m.Run.ID != "run1+run2+run3+run4" {
		t.Errorf("merged run %+v", m.Run)
	}
	if !m.Run.Started.Equal(t0.Add(time.Second)) || m.Run.DurationMS != 4000 || !m.Run.Complete {
		t.Errorf("merged run spans %s + %.0f ms (complete %t), want from the first shard's start to the last's end, 4000 ms",
			m.Run.Started, m.Run.DurationMS, m.Run.Complete)
	}
	var md, junit bytes.Buffer
	if err := reports.WriteMarkdown(&md, m); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), `shard 2/4 (run run2, seed 7): S2 \[create\], K1 \[capture\]`) {
		t.Errorf("the Markdown report does not say which checks shard 2 ran:\n%s", md.String())
	}
	if err := reports.WriteJUnit(&junit, m); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(junit.String(), `<property name="shard" value="4"></property>`) {
		t.Errorf("junit.xml carries no shard property:\n%s", junit.String())
	}
}

func TestMergeSeedsAndIncompleteShards(t *testing.T) {
	shards := shardReports(2, passing)
	shards[1].Run.Seed = 8
	shards[1].Run.Complete, shards[1].Run.Incomplete = false, "Interrupted by User"
	m, err := reports.Merge(shards, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Run.Seed != 0 || m.Run.Shards[1].Seed != 8 || m.Run.Complete || m.Run.Incomplete != "shard 2/2: Interrupted by User" || m.ExitCode() != 2 {
		t.Errorf("merged run %+v (exit %d): want no one seed, incomplete because of shard 2, exit 2", m.Run, m.ExitCode())
	}
}

func TestMergeRefusesOtherSuites(t *testing.T) {
	cases := []struct {
		name, want string
		mutate     func(rs []reports.Report) []reports.Report
	}{
		{"another version", "a.json was written by idemspec v1.2.3 and b.json by idemspec v9", func(rs []reports.Report) []reports.Report {
			rs[1].Tool.Version = "v9"
			return rs
		}},
		{"another target file", "a.json tested api.yaml (sha256 ab12) and b.json tested api.yaml (sha256 cd34): run every shard with the same target file", func(rs []reports.Report) []reports.Report {
			rs[1].Target.Digest = "cd34"
			return rs
		}},
		{"another fake", "tested fake:reference and b.json tested fake:nodedup", func(rs []reports.Report) []reports.Report {
			rs[0].Target.Digest, rs[0].Target.Source = "", "fake:reference"
			rs[1].Target.Digest, rs[1].Target.Source = "", "fake:nodedup"
			return rs
		}},
		{"not a shard", "b.json: not a shard's report", func(rs []reports.Report) []reports.Report {
			rs[1].Run.Shard = nil
			return rs
		}},
		{"another count", "a.json is shard 1/2 and b.json shard 2/3", func(rs []reports.Report) []reports.Report {
			rs[1].Run.Shard = &reports.Shard{Index: 2, Count: 3, Operations: rs[0].Run.Shard.Operations, Checks: 6}
			return rs
		}},
		{"other operations", "sliced different suites", func(rs []reports.Report) []reports.Report {
			rs[1].Run.Shard = &reports.Shard{Index: 2, Count: 2, Operations: []string{"create"}, Checks: 3}
			return rs
		}},
		{"another filter", `a.json ran --label-filter "" and b.json "S4"`, func(rs []reports.Report) []reports.Report {
			rs[1].Run.LabelFilter = "S4"
			return rs
		}},
		{"strict and not", "run every shard with the same --strict", func(rs []reports.Report) []reports.Report {
			rs[1].Run.Strict = true
			return rs
		}},
		{"a shard twice", "a.json and b.json are both shard 1/2", func(rs []reports.Report) []reports.Report {
			return []reports.Report{rs[0], rs[0]}
		}},
		{"a shard missing", "shard 2/2 missing: the merge needs the reports of all 2 shards", func(rs []reports.Report) []reports.Report {
			return rs[:1]
		}},
		{"a check lost", "the 2 shards hold 5 checks, and the suite 6", func(rs []reports.Report) []reports.Report {
			rs[1].Checks = rs[1].Checks[1:]
			return rs
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := reports.Merge(c.mutate(shardReports(2, passing)), []string{"a.json", "b.json"})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error saying %q", err, c.want)
			}
		})
	}
	if _, err := reports.Merge(shardReports(2, passing), []string{"a.json", "b.json"}); err != nil {
		t.Errorf("the shards of one suite: %v", err)
	}
}

func TestParseShard(t *testing.T) {
	for in, want := range map[string]string{"1/1": "1/1", "2/4": "2/4", " 3 / 3": "3/3", "0/2": "", "3/2": "", "2": "", "a/b": "", "1/0": "",
		"256/256": "256/256", "1/257": "", "-1/2": ""} {
		s, err := reports.ParseShard(in)
		if got := s.String(); (err == nil) != (want != "") || (err == nil && got != want) {
			t.Errorf("ParseShard(%q) = %s, %v; want %q", in, got, err, want)
		}
	}
}
