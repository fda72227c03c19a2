package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// locatedTarget is a target file whose every field a check is about
// stands on a line of its own: the reference server as a managed
// process, with the mutant named.
const locatedTarget = `name: located
base_url: http://127.0.0.1:{{.Port}}
create:
  path: /resources
  body: '{"marker":"{{.Marker}}","amount":{{.Variant}}}'
  id_field: id
key:
  in: header
  name: Idempotency-Key
  format: uuid
  required: true
oracle:
  list:
    path: /resources?marker={{.Marker}}
    items: items
tenants:
  - name: tenant-a
    headers: {Authorization: Bearer example-tenant-a}
  - name: tenant-b
    headers: {Authorization: Bearer example-tenant-b}
in_progress_timeout: 2s
fail_trigger:
  header: X-Idemspec-Fail
  value: "503"
process:
  command: "{{.Idemspec}}"
  args: [serve, "--addr=127.0.0.1:{{.Port}}", "--db={{.ReportDir}}/target.db", --mutant=MUTANT, --delay=200ms, --in-progress-timeout=2s]
  health: {path: /healthz, timeout: 10s}
  crash_window: 50ms-150ms
`

// lineOf is the line of the first line of text that starts with
// prefix (after indentation).
func lineOf(t *testing.T, text, prefix string) int {
	t.Helper()
	for i, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), prefix) {
			return i + 1
		}
	}
	t.Fatalf("no line starts with %q", prefix)
	return 0
}

// TestSARIFLocatesFindingsInTheTargetFile: every run writes
// report.sarif, and each finding's result is at the line of the target
// file its check is about, one subtest per located check: the create's
// path (S1), its id_field (S2), the key (K1, K2a), fail_trigger (K6),
// process: (S5a, S5b) and the second tenant's headers (T1).
func TestSARIFLocatesFindingsInTheTargetFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	type want struct {
		level  string
		prefix string // the line's start
	}
	for _, run := range []struct {
		mutant, filter string
		checks         map[string]want
	}{
		{"nodedup", "S1 || S2 || K1 || K2a || K6 || S5a", map[string]want{
			"S1": {"error", "path: /resources"}, "S2": {"error", "id_field:"}, "K1": {"error", "key:"},
			"K2a": {"warning", "key:"}, "K6": {"error", "fail_trigger:"}, "S5a": {"error", "process:"},
		}},
		{"global-keys", "T1", map[string]want{"T1": {"error", "headers: {Authorization: Bearer example-tenant-b}"}}},
		{"stuck-inflight", "S5b", map[string]want{"S5b": {"error", "process:"}}},
	} {
		file := strings.Replace(locatedTarget, "MUTANT", run.mutant, 1)
		target := filepath.Join(dir, run.mutant+".yaml")
		if err := os.WriteFile(target, []byte(file), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, run.mutant)
		// As a GitHub Actions job: an annotation per finding, at its line.
		r := idemspecEnv(t, []string{"GITHUB_ACTIONS=true"}, "run", "--target", target, "--label-filter", run.filter, "--report-dir", out)
		if r.code != 1 {
			t.Fatalf("%s: exit %d, want 1\n%s%s", run.mutant, r.code, r.stdout, r.stderr)
		}
		b, err := os.ReadFile(filepath.Join(out, "report.sarif"))
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Version string `json:"version"`
			Runs    []struct {
				Results []struct {
					RuleID    string `json:"ruleId"`
					Level     string `json:"level"`
					Locations []struct {
						PhysicalLocation struct {
							ArtifactLocation struct{ URI string }    `json:"artifactLocation"`
							Region           struct{ StartLine int } `json:"region"`
						} `json:"physicalLocation"`
					} `json:"locations"`
				} `json:"results"`
			} `json:"runs"`
		}
		if err := json.Unmarshal(b, &doc); err != nil || doc.Version != "2.1.0" || len(doc.Runs) != 1 {
			t.Fatalf("%s: report.sarif: %v, version %q\n%s", run.mutant, err, doc.Version, b)
		}
		for id, w := range run.checks {
			t.Run(id, func(t *testing.T) {
				for _, res := range doc.Runs[0].Results {
					if res.RuleID != id {
						continue
					}
					if len(res.Locations) != 1 {
						t.Fatalf("%d locations, want 1", len(res.Locations))
					}
					// An absolute path is a file: URI; a relative one (a CI job
					// at the repository root) stays relative (reports tests).
					loc := res.Locations[0].PhysicalLocation
					if want := lineOf(t, file, w.prefix); loc.ArtifactLocation.URI != "file://"+filepath.ToSlash(target) || loc.Region.StartLine != want || res.Level != w.level {
						t.Errorf("at %s:%d, level %s; want %s:%d (%q), %s", loc.ArtifactLocation.URI, loc.Region.StartLine, res.Level, target, want, w.prefix, w.level)
					}
					verdict := map[string]string{"error": "FAIL", "warning": "WARN"}[w.level]
					annotation := fmt.Sprintf("::%s file=%s,line=%d,title=idemspec %s %s::", w.level, target, lineOf(t, file, w.prefix), verdict, id)
					if !strings.Contains(r.stdout, "\n"+annotation) {
						t.Errorf("no annotation %q on stdout:\n%s", annotation, r.stdout)
					}
					return
				}
				t.Errorf("no result for %s in report.sarif", id)
			})
		}
	}
}

// Outside GitHub Actions no workflow command is printed.
func TestNoAnnotationsOutsideGitHubActions(t *testing.T) {
	t.Parallel()
	r := idemspecEnv(t, []string{"GITHUB_ACTIONS="}, "run", "--target", "fake:nodedup", "--label-filter", "S1", "--report-dir", t.TempDir())
	if r.code != 1 || strings.Contains(r.stdout, "::error") {
		t.Errorf("exit %d, stdout:\n%s", r.code, r.stdout)
	}
	r = idemspecEnv(t, []string{"GITHUB_ACTIONS=true"}, "run", "--target", "fake:nodedup", "--label-filter", "S1", "--report-dir", t.TempDir())
	if !strings.Contains(r.stdout, "\n::error title=idemspec FAIL S1::should create exactly one resource") {
		t.Errorf("a fake's finding: no annotation without a file:\n%s", r.stdout)
	}
}
