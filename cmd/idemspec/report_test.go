package main_test

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/fakes/mutant"
	"github.com/idemspec/idemspec/harness/check"
)

// TestCompareMatchesDetectionMatrix runs the built CLI against the
// reference and three mutants, compares the four JSON reports, and reads
// the matrix back from both compare.md and compare.html: each column's
// FAIL cells must be exactly the checks its mutant is listed to catch
// (a MayCatch check may go either way), and the reference has none.
func TestCompareMatchesDetectionMatrix(t *testing.T) {
	long(t)
	t.Parallel()
	want := map[string]mutant.Mutant{"fake:" + fakes.Reference: {Name: fakes.Reference}}
	for _, m := range fakes.MutantsOf(fakes.OfServer) {
		if slices.Contains([]string{"nodedup", "check-then-insert", "ignore-payload"}, m.Name) {
			want["fake:"+m.Name] = m
		}
	}
	if len(want) != 4 {
		t.Fatalf("mutants nodedup, check-then-insert and ignore-payload not all in fakes.MutantsOf(fakes.OfServer): %v", want)
	}
	var files []string
	for target, m := range want {
		code := 1
		if len(m.Catches) == 0 {
			code = 0
		}
		files = append(files, filepath.Join(runInto(t, target, code), "report.json"))
	}
	sort.Strings(files)
	out := t.TempDir()
	r := idemspec(t, append([]string{"report", "--compare", "--out", out}, files...)...)
	if r.code != 0 {
		t.Fatalf("report --compare: exit %d\n%s", r.code, r.stderr)
	}

	fromMarkdown := markdownMatrix(t, filepath.Join(out, "compare.md"))
	fromHTML := htmlMatrix(t, filepath.Join(out, "compare.html"))
	for target, m := range want {
		for name, matrix := range map[string]map[string]map[string]string{"compare.md": fromMarkdown, "compare.html": fromHTML} {
			cells, ok := matrix[target]
			if !ok {
				t.Errorf("%s has no column %s", name, target)
				continue
			}
			var fails []string
			for id, v := range cells {
				if v == "FAIL" && !slices.Contains(m.MayCatch, id) {
					fails = append(fails, id)
				}
			}
			sort.Strings(fails)
			// A SHOULD check catches with WARN, not FAIL (see caught).
			wantFails := slices.DeleteFunc(m.CaughtBy(), func(id string) bool {
				c, _ := check.Get(id)
				return slices.Contains(m.MayCatch, id) || caught(c) != check.FAIL
			})
			sort.Strings(wantFails)
			if !slices.Equal(fails, wantFails) {
				t.Errorf("%s, column %s: FAIL cells %v, want the mutant's Catches %v", name, target, fails, wantFails)
			}
		}
	}
	if len(fromMarkdown) != len(fromHTML) {
		t.Errorf("compare.md has %d columns, compare.html %d", len(fromMarkdown), len(fromHTML))
	}
}

// markdownMatrix reads the first table of compare.md: column label ->
// check ID -> verdict.
func markdownMatrix(t *testing.T, path string) map[string]map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]string{}
	var columns []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "|---") {
			continue
		}
		if !strings.HasPrefix(line, "| ") {
			if columns != nil {
				break
			}
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		switch {
		case columns == nil:
			columns = cells[3:]
			for _, c := range columns {
				out[c] = map[string]string{}
			}
		case strings.HasPrefix(cells[0], "**"): // the run-verdict row
		default:
			for i, c := range cells[3:] {
				f := strings.Fields(c)
				out[columns[i]][cells[0]] = f[len(f)-1]
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("no matrix in %s:\n%s", path, b)
	}
	return out
}

// htmlMatrix reads the data attributes of compare.html's cells.
func htmlMatrix(t *testing.T, path string) map[string]map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := html.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]string{}
	for n := range doc.Descendants() {
		a := map[string]string{}
		for _, x := range n.Attr {
			a[x.Key] = x.Val
		}
		if n.Data != "td" || a["data-check"] == "" {
			continue
		}
		if out[a["data-target"]] == nil {
			out[a["data-target"]] = map[string]string{}
		}
		out[a["data-target"]][a["data-check"]] = a["data-verdict"]
	}
	return out
}

// TestReportRerendersFromJSON: `idemspec report report.json` writes the
// same Markdown, HTML and JUnit files the run wrote.
func TestReportRerendersFromJSON(t *testing.T) {
	long(t)
	t.Parallel()
	dir := runInto(t, "fake:ignore-payload", 1)
	out := t.TempDir()
	if r := idemspec(t, "report", filepath.Join(dir, "report.json"), "--out", out); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, f := range []string{"report.md", "report.html", "junit.xml"} {
		orig, err1 := os.ReadFile(filepath.Join(dir, f))
		again, err2 := os.ReadFile(filepath.Join(out, f))
		if err1 != nil || err2 != nil || string(orig) != string(again) {
			t.Errorf("%s re-rendered from report.json differs from the run's (%v, %v)", f, err1, err2)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "report.json")); err == nil {
		t.Error("a re-render wrote report.json, its own input")
	}
}

func TestReportBadInputExitsTwoNamingTheFile(t *testing.T) {
	notReport := writeFile(t, "junit.json", `{"testsuites": []}`)
	broken := writeFile(t, "broken.json", "{\n\"schema\": \"idemspec/report/v1\",\n}")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"report", "/nonexistent/report.json"}, "/nonexistent/report.json: no such file"},
		{[]string{"report", notReport}, notReport + `: schema "", want "idemspec/report/v2"`},
		{[]string{"report", "--compare", broken}, broken + ":3:1: not an idemspec report"},
		{[]string{"report", notReport, broken}, "one JSON report at a time"},
		{[]string{"report"}, "name a JSON report"},
	}
	for _, c := range cases {
		r := idemspec(t, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("idemspec %v: exit %d, stderr %q; want exit 2 and %q", c.args, r.code, r.stderr, c.want)
		}
		if strings.Contains(r.stderr, "goroutine ") {
			t.Errorf("stack trace:\n%s", r.stderr)
		}
	}
}
