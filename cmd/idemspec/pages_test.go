package main_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/harness/check"
)

// TestPageBoundIsAnErrorOfTheCheck: nodedup executes every request of
// S1, and its list answers one item a page. With room for every page
// the oracle counts the duplicates and S1 fails; allowed one page, S1
// is an ERROR naming the bound, never the PASS a count of page 1 alone
// (one resource) would give.
func TestPageBoundIsAnErrorOfTheCheck(t *testing.T) {
	for _, tc := range []struct {
		max     string
		verdict check.Status
		code    int
		reason  string
	}{
		{max: "", verdict: check.FAIL, code: 1},
		{max: ", max: 1", verdict: check.ERROR, code: 2, reason: "oracle.list.pages.max: the list goes on after page 1"},
	} {
		t.Run(string(tc.verdict), func(t *testing.T) {
			server, err := fakes.Open(fakes.Options{Mutant: "nodedup", PageSize: 1, PageStyle: fakes.PageCursor})
			if err != nil {
				t.Fatal(err)
			}
			defer server.Close()
			addr := serveLoopback(t, server.Handler())
			file := writeFile(t, "paged.yaml", fmt.Sprintf(`base_url: http://%s
%soracle:
  list:
    path: /resources?marker={{.Marker}}
    items: items
    pages: {next: cursor, field: next_cursor, param: cursor%s}
`, addr, createAndList, tc.max))
			r := run(t, "--target", file, "--label-filter", "S1")
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\n%s%s", r.code, tc.code, r.stdout, r.stderr)
			}
			ran := false
			for _, c := range r.report.Checks {
				if c.ID == "S1" {
					ran = true
					if c.Verdict != tc.verdict || !strings.Contains(c.Reason, tc.reason) {
						t.Errorf("S1 %s (%s), want %s naming %q", c.Verdict, c.Reason, tc.verdict, tc.reason)
					}
				}
			}
			if !ran {
				t.Errorf("S1 is missing from the report:\n%s", r.stdout)
			}
		})
	}
}

// paginatedExample is the example target file whose oracle reads a
// paged list; IDEMSPEC_MUTANT picks the server it runs.
var paginatedExample = filepath.Join("..", "..", "examples", "targets", "paginated-list.yaml")

// TestPaginatedExampleValidates: the example loads, and the dry run
// says that each oracle read may cost a request per page.
func TestPaginatedExampleValidates(t *testing.T) {
	if r := idemspec(t, "validate", paginatedExample); r.code != 0 {
		t.Fatalf("validate: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r := idemspec(t, "run", "--target", paginatedExample, "--dry-run")
	if r.code != 0 || !strings.Contains(r.stdout, "oracle list, paged (next: cursor): each oracle read above is one request per page, at most 100") {
		t.Errorf("dry run: exit %d, want 0 and the pages named\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestPaginatedExampleRuns runs the example against the reference
// (which passes: one resource per marker fits page 1) and nodedup,
// whose duplicates the oracle counts past page 1, as the server's log
// shows.
func TestPaginatedExampleRuns(t *testing.T) {
	long(t)
	t.Parallel()
	for _, tc := range []struct {
		mutant string
		s1     check.Status
		code   int
		paged  bool
	}{{fakes.Reference, check.PASS, 0, false}, {"nodedup", check.FAIL, 1, true}} {
		t.Run(tc.mutant, func(t *testing.T) {
			dir := t.TempDir()
			r := runEnv(t, []string{"IDEMSPEC_MUTANT=" + tc.mutant}, "--target", paginatedExample, "--report-dir", dir, "--label-filter", "S1 || S4")
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\n%s%s", r.code, tc.code, r.stdout, r.stderr)
			}
			if got := checkResult(t, r, "S1").Verdict; got != tc.s1 {
				t.Errorf("S1 %s, want %s\n%s", got, tc.s1, r.stdout)
			}
			log, err := os.ReadFile(filepath.Join(dir, "target.log"))
			if err != nil {
				t.Fatal(err)
			}
			if paged := strings.Contains(string(log), "GET /resources?cursor=res_"); paged != tc.paged {
				t.Errorf("the oracle asked for a page after the first: %v, want %v\n%s", paged, tc.paged, log)
			}
		})
	}
}
