package main_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/fakes"
)

// TestEveryOracleJudgesTheReferenceAndAMutant runs the core checks
// against the reference and nodedup with each kind of
// oracle: the SQL query reads the fake's own SQLite file, the command
// counts what the list endpoint answers with curl,
// the lookup reads ids one by one. The reference must pass with every
// oracle, nodedup must fail S1 with every oracle, and the report must
// name the oracle and its evidence.
func TestEveryOracleJudgesTheReferenceAndAMutant(t *testing.T) {
	t.Parallel()
	oracles := map[string]string{
		"sql": `  sql:
    driver: sqlite
    dsn: "file:DBPATH?_pragma=busy_timeout(10000)"
    query: SELECT id FROM resources WHERE marker = ? AND tenant = 'public'
`,
		"lookup": `  lookup:
    path: /resources/{{.ID}}
    marker_field: marker
`,
		"command": `  command:
    run: 'curl -s "BASEURL/resources?marker=$1" | grep -o "\"id\"" | wc -l'
`,
		// The ids the API's create answers carried, read on the lanes'
		// connections, the answer S2 drops included.
		"wire": "  wire: {}\n",
	}
	for kind, spec := range oracles {
		for _, mutant := range []string{fakes.Reference, "nodedup"} {
			t.Run(kind+"/"+mutant, func(t *testing.T) {
				t.Parallel() // each has a server and a database of its own
				if kind == "command" {
					requireTool(t, "curl", "curl")
				}
				db := filepath.Join(t.TempDir(), "fake.db")
				server, err := fakes.Open(fakes.Options{Mutant: mutant, DBPath: db})
				if err != nil {
					t.Fatal(err)
				}
				defer server.Close()
				addr := serveLoopback(t, server.Handler())
				file := writeFile(t, "oracle.yaml", fmt.Sprintf("base_url: http://%s\n%soracle:\n%s", addr, createAndList,
					strings.NewReplacer("DBPATH", db, "BASEURL", "http://"+addr.String()).Replace(spec)))
				r := run(t, "--target", file, "--label-filter", "S1 || S2 || S3")
				if r.report.Target.Oracle != kind || r.report.Target.OracleEvidence == "" {
					t.Errorf("the report names oracle %q (%q), want %s with its evidence", r.report.Target.Oracle, r.report.Target.OracleEvidence, kind)
				}
				want := 0
				if mutant != fakes.Reference {
					want = 1
				}
				if r.code != want {
					t.Fatalf("exit %d, want %d\n%s%s", r.code, want, r.stdout, r.stderr)
				}
				if !strings.Contains(r.stdout, "oracle: "+kind) {
					t.Errorf("stdout does not name the oracle:\n%s", r.stdout)
				}
			})
		}
	}
}

// The whole default suite on the reference, counted from the wire: no
// check fails (the bursts' paused answers once read as the end of the
// answers, and P1 saw an acknowledged resource gone); S6 warns (no
// reconcile), the restarts skip (idemspec does not run this server).
func TestWireOracleRunsTheSuiteOnTheReference(t *testing.T) {
	long(t)
	t.Parallel()
	file := wireTarget(t, fakes.Options{})
	r := run(t, "--target", file, "--sequences", "8")
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, c := range r.report.Checks {
		if c.Verdict == "FAIL" || c.Verdict == "ERROR" {
			t.Errorf("%s %s: %s", c.ID, c.Verdict, c.Reason)
		}
	}
}

// An API that can neither list nor look up, counted from the wire: its
// check-then-insert twin (a look-up, then an insert with no unique
// constraint) fails S4, the duplicates' answers being on the wire.
func TestWireOracleCatchesCheckThenInsert(t *testing.T) {
	t.Parallel()
	file := wireTarget(t, fakes.Options{Mutant: "check-then-insert"})
	r := run(t, "--target", file, "--label-filter", "S4")
	for _, c := range r.report.Checks {
		if c.ID == "S4" && c.Verdict != "FAIL" {
			t.Errorf("S4 %s (%s), want FAIL\n%s", c.Verdict, c.Reason, r.stdout)
		}
	}
	if r.code != 1 {
		t.Errorf("exit %d, want 1", r.code)
	}
}

// wireTarget serves the fake server opts describes, its database in a
// temporary directory, on a loopback port, and writes a target file
// for it counted by the wire oracle.
func wireTarget(t *testing.T, opts fakes.Options) string {
	t.Helper()
	opts.DBPath = filepath.Join(t.TempDir(), "fake.db")
	server, err := fakes.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Close() })
	addr := serveLoopback(t, server.Handler())
	return writeFile(t, "wire.yaml", fmt.Sprintf("base_url: http://%s\n%soracle:\n  wire: {}\n", addr, createAndList))
}
