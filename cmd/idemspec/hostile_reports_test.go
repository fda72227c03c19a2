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
		cs = []reports.CheckResult{{Entry: check.Entry{ID: "S1", Title: "should", Level: check.MUST, Group: "core"}, Verdict: check.PASS}}
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

// evil is what a forged report or a hostile server puts in a name:
// clear the screen, set the window's title, ring the bell, a CSI, and a
// line break that would split a table.
const evil = "\x1b[2J\x1b]0;PWN\x07\u009b31m\nforged"

// rawControl is the first control character of s a terminal acts on
// (all of C0 but tab and newline, DEL, C1), or -1.
func rawControl(s string) rune {
	for _, c := range s {
		if (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f || (c >= 0x80 && c < 0xa0) {
			return c
		}
	}
	return -1
}

// A forged report's ids, titles, clauses, operations, subjects and tool
// rows reach no report idemspec writes from it raw: re-rendered, merged
// or compared, every control character is a visible escape. The
// catalogue's fields used to be copied raw (only the target's strings
// were escaped).
func TestForgedReportTextIsEscapedInEveryReport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	forge := func(r *reports.Report) {
		r.Target.Name = "api" + evil
		for i := range r.Checks {
			c := &r.Checks[i]
			c.ID, c.Title, c.Clause, c.Group, c.Subject = "S1"+evil, "should "+evil, evil, evil, evil
			c.Reason = evil
		}
		r.Tools = []reports.ToolRow{{Tool: evil, Claimed: evil, Key: evil, Verdict: check.PASS, Verdicts: "M1 PASS" + evil, Evidence: evil}}
	}
	a, b := forgedShard(t, dir, "a", 1, 2, forge), forgedShard(t, dir, "b", 2, 2, forge)
	for _, c := range []struct {
		args  []string
		files []string
	}{
		{[]string{"report", "--out", filepath.Join(dir, "again"), a}, []string{"report.md", "report.html", "junit.xml", "report.sarif"}},
		{[]string{"report", "--merge", "--out", filepath.Join(dir, "merged"), a, b}, []string{"report.md", "report.html", "junit.xml", "report.json", "report.sarif"}},
		{[]string{"report", "--compare", "--out", filepath.Join(dir, "compared"), a, b}, []string{"compare.md", "compare.html"}},
	} {
		r := idemspec(t, c.args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", c.args, r.code, r.stdout, r.stderr)
		}
		if ch := rawControl(r.stdout + r.stderr); ch >= 0 {
			t.Errorf("%v printed the control character %U raw", c.args, ch)
		}
		for _, f := range c.files {
			p := filepath.Join(outDir(c.args), f)
			body, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if ch := rawControl(string(body)); ch >= 0 {
				t.Errorf("%s holds the control character %U raw", p, ch)
			}
			if f != "report.json" && !strings.Contains(string(body), `x07`) {
				t.Errorf("%s does not show the escape as text", p)
			}
		}
	}
}

// outDir is the --out of a report command's arguments.
func outDir(args []string) string {
	for i, a := range args {
		if a == "--out" {
			return args[i+1]
		}
	}
	return ""
}

// namingServer is a stdio MCP server in sh that lists two read-only
// tools whose names a hostile server chose: escape sequences that clear
// the screen and set the window's title, and a newline that forges a
// row of the summary table.
const namingServer = `while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
  [ -z "$id" ] && continue
  v=$(printf '%s' "$line" | sed -n 's/.*"protocolVersion":"\([^"]*\)".*/\1/p')
  case "$line" in
    *'"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"%s","capabilities":{"tools":{}},"serverInfo":{"name":"x","version":"1"}}}\n' "$id" "$v";;
    *'"tools/list"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"\\u001b[2J\\u001b]0;PWN\\u0007","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}},{"name":"split\\nPASS forged_row","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}]}}\n' "$id";;
    *'"tools/call"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"{}"}]}}\n' "$id";;
    *) printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id";;
  esac
done
`

// A hostile MCP server's tool names reach the terminal escaped, one
// line each: they used to clear the screen, set the window's title and
// split the summary table with a line of their own.
func TestHostileToolNamesReachTheTerminalEscaped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	server := writeFile(t, "naming-server.sh", namingServer)
	r := idemspec(t, "mcp", "--cmd", "sh "+server, "--report-dir", filepath.Join(dir, "report"))
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	out := r.stdout + r.stderr
	if ch := rawControl(out); ch >= 0 {
		t.Errorf("the terminal got the control character %U raw:\n%q", ch, out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "PASS forged_row") {
			t.Errorf("a tool's name split the output into a line of its own: %q", line)
		}
	}
	if !strings.Contains(out, `PASS  \x1b[2J\x1b]0;PWN\x07`) || !strings.Contains(out, `split\x0aPASS forged_row`) {
		t.Errorf("the summary does not show the names escaped:\n%s", out)
	}
	for _, f := range []string{"report.md", "report.html", "junit.xml", "report.json"} {
		body, err := os.ReadFile(filepath.Join(dir, "report", f))
		if err != nil {
			t.Fatal(err)
		}
		if ch := rawControl(string(body)); ch >= 0 {
			t.Errorf("%s holds the control character %U raw", f, ch)
		}
	}
}
