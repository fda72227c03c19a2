package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// githubJobRun is what one run of the example workflow's job left: each
// script step's exit code and output, by step name.
type githubJobRun struct {
	code map[string]int
	out  map[string]string
}

// runGitHubJob runs the example workflow's script steps in dir, in
// order, as the job would (the build step aside: the binary under test
// is on PATH), with env added to every step; every step runs, as the
// job's `if: !cancelled()` steps do after a failed one.
func runGitHubJob(t *testing.T, dir string, env map[string]string) githubJobRun {
	t.Helper()
	file := filepath.Join(ciExamples, "github-actions.yml")
	var w githubWorkflow
	decodeYAML(t, file, &w)
	job := w.Jobs["idemspec"]
	run := githubJobRun{code: map[string]int{}, out: map[string]string{}}
	for i, step := range job.Steps {
		if step.Uses != "" || builds(ciScript{script: step.Run}) {
			continue
		}
		where := fmt.Sprintf("%s: step %d (%s)", file, i+1, step.Name)
		e := merge(merge(job.Env, step.Env), env)
		e["GITHUB_STEP_SUMMARY"] = filepath.Join(dir, "step-summary.md")
		run.code[step.Name], run.out[step.Name] = bash(t, dir, filepath.Dir(binary), ciScript{where, expand(t, where, step.Run, e, nil), e})
	}
	return run
}

// TestGitHubExampleFirstWeek is docs/CI.md's first week, run with the
// example workflow's own commands against an API with known defects
// (idemspec serve --mutant nodedup): Monday's run is red and uploads
// SARIF; `idemspec accept --from` writes .idemspec/accepted.yaml, and
// Tuesday's run is green, every finding ACCEPTED (suppressed in the
// SARIF) and still failing since Monday's report; Wednesday the API is
// fixed: every finding is fixed since Tuesday, and the run fails on the
// stale entries, naming them; Thursday, the entries removed, it is green.
func TestGitHubExampleFirstWeek(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	api := func(mutant string) {
		t.Helper()
		url := serve(t, "--db", filepath.Join(dir, mutant+".db"), "--mutant", mutant)
		target := strings.Replace(ciTarget, "http://api:8080", url, 1)
		if err := os.WriteFile(filepath.Join(dir, "idemspec.yaml"), []byte(target), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The deterministic checks only: a property's search says nothing
	// more of the week, and costs a minute a run.
	env := map[string]string{"IDEMSPEC_LABEL_FILTER": "!property"}
	const test = "Test idempotency"
	sarif := func() (results, suppressed int) {
		t.Helper()
		var doc struct {
			Runs []struct {
				Results []struct {
					Suppressions []struct{ Status string } `json:"suppressions"`
				} `json:"results"`
			} `json:"runs"`
		}
		b, _ := os.ReadFile(filepath.Join(dir, "idemspec-report", "report.sarif"))
		if err := json.Unmarshal(b, &doc); err != nil || len(doc.Runs) != 1 {
			t.Fatalf("report.sarif: %v\n%s", err, b)
		}
		for _, r := range doc.Runs[0].Results {
			results++
			if len(r.Suppressions) == 1 && r.Suppressions[0].Status == "accepted" {
				suppressed++
			}
		}
		return results, suppressed
	}
	md := func() string {
		b, _ := os.ReadFile(filepath.Join(dir, "idemspec-report", "report.md"))
		return string(b)
	}

	// Monday: the first run is red.
	api("nodedup")
	monday := runGitHubJob(t, dir, env)
	if monday.code[test] != 1 {
		t.Fatalf("Monday: %q exit %d, want 1\n%s", test, monday.code[test], monday.out[test])
	}
	findings, suppressed := sarif()
	if findings < 5 || suppressed != 0 {
		t.Fatalf("Monday: report.sarif has %d results, %d suppressed", findings, suppressed)
	}
	for name, code := range monday.code {
		if name != test && code != 0 {
			t.Errorf("Monday: step %q exit %d\n%s", name, code, monday.out[name])
		}
	}

	// The team accepts the findings for a month (the command docs/CI.md
	// shows), and commits the file.
	until := time.Now().UTC().AddDate(0, 1, 0).Format("2006-01-02")
	os.MkdirAll(filepath.Join(dir, ".idemspec"), 0o755)
	if code, out := bash(t, dir, filepath.Dir(binary), ciScript{"accept", `idemspec accept --from idemspec-report/report.json --reason "PAY-123: the key store moves to Postgres in Q1" --until ` + until + ` --out .idemspec/accepted.yaml`, nil}); code != 0 {
		t.Fatalf("accept --from: exit %d\n%s", code, out)
	}

	// Tuesday: green, every finding ACCEPTED, still failing since Monday.
	tuesday := runGitHubJob(t, dir, env)
	if tuesday.code[test] != 0 {
		t.Fatalf("Tuesday: %q exit %d, want 0\n%s", test, tuesday.code[test], tuesday.out[test])
	}
	if n, s := sarif(); n != findings || s != findings {
		t.Errorf("Tuesday: report.sarif has %d results, %d suppressed; want %d, all suppressed", n, s, findings)
	}
	if m := md(); !strings.Contains(m, "**Since the previous run**") || !strings.Contains(m, "| none | none | ") || strings.Count(m, "🔕 ACCEPTED") < findings {
		t.Errorf("Tuesday: report.md lacks the changes (none new, none fixed) or the ACCEPTED findings:\n%.2000s", m)
	}
	if !strings.Contains(tuesday.out[test], "ACCEPTED S1 ") || !strings.Contains(tuesday.out[test], "PAY-123") {
		t.Errorf("Tuesday: the terminal does not show S1 ACCEPTED with its reason:\n%s", tuesday.out[test])
	}

	// Wednesday: the API is fixed; every entry is stale, and named.
	api("reference")
	wednesday := runGitHubJob(t, dir, env)
	if wednesday.code[test] != 1 || !strings.Contains(wednesday.out[test], "remove it: S1 passes now") {
		t.Errorf("Wednesday: %q exit %d, want 1 naming the stale entries\n%s", test, wednesday.code[test], wednesday.out[test])
	}
	if !strings.Contains(wednesday.out[test], "  newly failing  none\n  fixed          K1, ") || !strings.Contains(wednesday.out[test], "  still failing  none\n") {
		t.Errorf("Wednesday: the findings are not all fixed since Tuesday:\n%s", wednesday.out[test])
	}

	// Thursday: the entries removed, the job is green.
	if err := os.WriteFile(filepath.Join(dir, ".idemspec", "accepted.yaml"), []byte("[]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	thursday := runGitHubJob(t, dir, env)
	if thursday.code[test] != 0 {
		t.Fatalf("Thursday: %q exit %d, want 0\n%s", test, thursday.code[test], thursday.out[test])
	}
	if n, _ := sarif(); n != 0 {
		t.Errorf("Thursday: report.sarif has %d results, want none", n)
	}
	if !strings.Contains(thursday.out[test], "since the previous run") {
		t.Errorf("Thursday: no table since the previous run:\n%s", thursday.out[test])
	}
}
