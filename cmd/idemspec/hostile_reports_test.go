package main_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/reports"
)

// forgedShard writes a shard's report.json as `run --shard` would, then
// lets forge change it the way a hand (or a hostile CI step) could.
func forgedShard(t *testing.T, dir, name string, index, count int, forge func(*reports.Report)) string {
	t.Helper()
	s := &reports.Shard{Index: index, Count: count, Operations: []string{""}, Checks: 1}
	var cs []reports.CheckResult
	if index == 1 {
		cs = []reports.CheckResult{{Check: check.Check{ID: "S1", Title: "should", Level: check.MUST, Group: "core"}, Verdict: check.PASS}}
	}
	r := reports.New(reports.Run{Complete: true}, reports.Meta{Version: "v1", RunID: name, Shard: s,
		Target: reports.Target{Name: "api", Source: "idemspec.yaml", Digest: "aaaa"}}, cs)
	if forge != nil {
		forge(&r)
	}
	p := filepath.Join(dir, name+".json")
	if err := reports.WriteFileAtomic(p, func(w io.Writer) error { return reports.WriteJSON(w, r) }); err != nil {
		t.Fatal(err)
	}
	return p
}

// refusedInOneLine holds r to a refusal: exit 2, one short line on
// stderr that says want, no Go panic or stack trace, nothing written.
func refusedInOneLine(t *testing.T, what string, r result, want, out string) {
	t.Helper()
	if r.code != 2 || !strings.Contains(r.stderr, want) || strings.Count(r.stderr, "\n") != 1 || len(r.stderr) > 400 {
		t.Errorf("%s: exit %d, stderr (%d bytes) %.600q; want exit 2 and one short line saying %q", what, r.code, len(r.stderr), r.stderr, want)
	}
	if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic") {
		t.Errorf("%s: a Go panic reached the terminal:\n%.2000s", what, r.stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s: a refused report wrote %s", what, out)
	}
}

// A forged run.shard (an index outside 1..COUNT, a COUNT below 1 or
// past MaxShards) is refused with one short line. These used to panic
// (index out of range, makeslice), or take 1.3 GB and print a 179 MB
// line listing ten million missing shards.
func TestForgedShardNumbersAreRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "merged")
	good := forgedShard(t, dir, "good", 1, 2, nil)
	for _, c := range []struct {
		name         string
		index, count int
	}{
		{"minus-one", -1, 2},
		{"past-count", 3, 2},
		{"negative-count", 1, -5},
		{"huge-count", 1, 1 << 62},
		{"ten-million", 1, 10_000_000},
		{"past-max", 1, reports.MaxShards + 1},
	} {
		forged := forgedShard(t, dir, c.name, 2, 2, func(r *reports.Report) { r.Run.Shard.Index, r.Run.Shard.Count = c.index, c.count })
		r := idemspec(t, "report", "--merge", "--out", out, good, forged)
		refusedInOneLine(t, "merge of "+c.name, r, forged+": run.shard: INDEX/COUNT", out)
		r = idemspec(t, "report", "--out", out, forged)
		refusedInOneLine(t, "re-render of "+c.name, r, forged+": run.shard: INDEX/COUNT", out)
	}
	// A set with many shards missing names ten of them, then counts.
	lone := forgedShard(t, dir, "lone", 1, reports.MaxShards, nil)
	r := idemspec(t, "report", "--merge", "--out", out, lone)
	refusedInOneLine(t, "merge of 1 of 256", r, "shard 2/256, 3/256, 4/256, 5/256, 6/256, 7/256, 8/256, 9/256, 10/256, 11/256, and 245 more missing", out)
}

// A verdict, a level or a summary idemspec could not have written is
// refused, naming the file and the field: a merge where one shard said
// "LOL" used to exit 0 with counts adding up to 18 of 19.
func TestMalformedReportFieldsAreRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "merged")
	b := forgedShard(t, dir, "b", 2, 2, nil)
	for _, c := range []struct {
		name  string
		forge func(*reports.Report)
		want  string
	}{
		{"lol", func(r *reports.Report) { r.Checks[0].Verdict = "LOL" }, `checks[0].verdict: "LOL" is not a verdict`},
		{"level", func(r *reports.Report) { r.Checks[0].Level = "OUGHT" }, `checks[0].level "OUGHT"`},
		{"summary", func(r *reports.Report) { r.Summary.Pass = 19 }, "summary (total 1: 19 pass"},
		{"tool", func(r *reports.Report) { r.Tools = []reports.ToolRow{{Tool: "t", Verdict: "OK"}} }, `tools[0].verdict: "OK" is not a verdict`},
	} {
		a := forgedShard(t, dir, c.name, 1, 2, c.forge)
		r := idemspec(t, "report", "--merge", "--out", out, a, b)
		refusedInOneLine(t, "merge with "+c.name, r, a+": "+c.want, out)
		r = idemspec(t, "report", "--compare", "--out", out, a, b)
		refusedInOneLine(t, "compare with "+c.name, r, a+": "+c.want, out)
	}
}

// A report is read from a regular file under MaxReportSize: /dev/zero
// used to be read until memory ran out, a FIFO nobody writes to to
// block for ever, and a 300 MB report.json took 2.2 GB to merge.
func TestReportInputsAreBoundedRegularFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(dir, "huge.json")
	if err := os.WriteFile(huge, []byte(`{"schema":"idemspec/report/v1","pad":"`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, reports.MaxReportSize+1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "--out", out, "/dev/zero"}, "/dev/zero: a device, not a file"},
		{[]string{"report", "--out", out, fifo}, fifo + ": a named pipe, not a file"},
		{[]string{"report", "--out", out, dir}, dir + ": a directory, not a file"},
		{[]string{"report", "--merge", "--out", out, huge, huge}, huge + ": larger than 64 MiB"},
	} {
		refusedInOneLine(t, strings.Join(c.args, " "), idemspec(t, c.args...), c.want, out)
	}
}
