package main_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/reports"
)

// githubContext holds the values the dry run gives the GitHub
// expressions of a matrix job; TestShardExamplesByHand sets each shard's.
var githubContext = map[string]string{"matrix.shard": "1", "strategy.job-total": "3", "github.run_id": "4242"}

// kubeJob is the part of a Kubernetes Job the examples' scripts depend
// on: how many pods, the containers' command and environment, and where
// the volumes are mounted.
type kubeJob struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    int    `yaml:"completions"`
		Parallelism    int    `yaml:"parallelism"`
		Template       struct {
			Spec struct {
				Containers []struct {
					Name    string   `yaml:"name"`
					Command []string `yaml:"command"`
					Args    []string `yaml:"args"`
					Env     []struct {
						Name  string `yaml:"name"`
						Value string `yaml:"value"`
					} `yaml:"env"`
					VolumeMounts []struct {
						Name      string `yaml:"name"`
						MountPath string `yaml:"mountPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
				Volumes []struct {
					Name                  string `yaml:"name"`
					PersistentVolumeClaim struct {
						ClaimName string `yaml:"claimName"`
					} `yaml:"persistentVolumeClaim"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// kubeJobs decodes the Jobs of a multi-document manifest.
func kubeJobs(t *testing.T, file string) []kubeJob {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var jobs []kubeJob
	for dec := yaml.NewDecoder(f); ; {
		var j kubeJob
		if err := dec.Decode(&j); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if j.Kind == "Job" {
			jobs = append(jobs, j)
		}
	}
	if len(jobs) == 0 {
		t.Fatalf("%s: no Job", file)
	}
	return jobs
}

// scripts are the Job's container scripts (command bash -c), each split
// at its line "set +e" into the build, which must fail the pod (set -e),
// and the rest, whose failure is a verdict; each with the environment the
// container declares; a value under a volume's mount path is moved
// under root, where every volume is on this machine. An Indexed Job's
// pod is the first (JOB_COMPLETION_INDEX 0).
func (j kubeJob) scripts(file, root string) []ciScript {
	var out []ciScript
	for _, c := range j.Spec.Template.Spec.Containers {
		env := map[string]string{}
		for _, e := range c.Env {
			env[e.Name] = e.Value
			for _, m := range c.VolumeMounts {
				if rest, ok := strings.CutPrefix(e.Value, m.MountPath); ok {
					env[e.Name] = root + rest
				}
			}
		}
		if j.Spec.CompletionMode == "Indexed" {
			env["JOB_COMPLETION_INDEX"] = "0"
		}
		where := fmt.Sprintf("%s: job %s container %s", file, j.Metadata.Name, c.Name)
		lines := strings.Split(strings.Join(c.Args, "\n"), "\n")
		if i := slices.IndexFunc(lines, func(l string) bool { return strings.TrimSpace(l) == "set +e" }); i >= 0 {
			out = append(out, ciScript{where + " (build)", strings.Join(lines[:i], "\n"), env})
			lines = lines[i:]
		}
		out = append(out, ciScript{where, strings.Join(lines, "\n"), env})
	}
	return out
}

// TestShardExamplesByHand runs the sharded examples' commands as their
// CI would, on this machine: the GitHub matrix's shard jobs and the
// Kubernetes Indexed Job's pods, all at once (N processes), each in a
// workspace of its own for GitHub, on one shared volume for Kubernetes;
// then the merge. The merged report must hold the checks of an unsharded
// run of the same seed, each with the same verdict and a shard, and the
// merge must exit as that run did. The target is a mutant that fails
// some checks and skips others, so the verdicts say something.
func TestShardExamplesByHand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	url := serve(t, "--db", filepath.Join(dir, "api.db"), "--mutant", "ignore-payload")
	target := []byte(strings.Replace(ciTarget, "http://api:8080", url, 1))
	const seed = "4242"
	whole := filepath.Join(dir, "whole")
	if err := os.MkdirAll(whole, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(whole, "idemspec.yaml"), target, 0o644); err != nil {
		t.Fatal(err)
	}
	r := runEnv(t, nil, "--target", filepath.Join(whole, "idemspec.yaml"), "--allow-remote", "--seed", seed, "-q", "--report-dir", filepath.Join(whole, "report"))
	want, wholeCode := r.report, r.code
	if want.Summary.Fail == 0 || want.Summary.Pass == 0 || want.Summary.Skip == 0 {
		t.Fatalf("the unsharded run against the mutant should pass, fail and skip checks: %+v", want.Summary)
	}
	t.Run("github", func(t *testing.T) {
		t.Parallel()
		merged, code := githubShards(t, target, seed)
		sameRun(t, want, wholeCode, merged, code)
	})
	t.Run("kubernetes", func(t *testing.T) {
		t.Parallel()
		merged, code := kubeShards(t, target, seed)
		sameRun(t, want, wholeCode, merged, code)
	})
}

// githubShards runs the sharded workflow: each matrix job's steps in a
// workspace of its own, the artifacts each uploads copied where the
// merge job downloads them, then the merge job's steps.
func githubShards(t *testing.T, target []byte, seed string) (reports.Report, int) {
	file := filepath.Join(ciExamples, "github-actions-shards.yml")
	var w githubWorkflow
	decodeYAML(t, file, &w)
	var m struct {
		Env  map[string]string `yaml:"env"`
		Jobs map[string]struct {
			Strategy struct {
				Matrix struct {
					Shard []int `yaml:"shard"`
				} `yaml:"matrix"`
			} `yaml:"strategy"`
		} `yaml:"jobs"`
	}
	decodeYAML(t, file, &m)
	shardJob, mergeJob := w.Jobs["shard"], w.Jobs["merge"]
	shards := m.Jobs["shard"].Strategy.Matrix.Shard
	if len(shards) < 2 || len(shardJob.Steps) == 0 || len(mergeJob.Steps) == 0 {
		t.Fatalf("%s: want a job shard with a matrix of shards and a job merge (shards %v)", file, shards)
	}
	env := merge(m.Env, nil)
	env["IDEMSPEC_SEED"] = seed // ${{ github.run_id }}: one value for every job
	for _, name := range []string{"shard", "merge"} {
		where := file + ": job " + name
		runsAfterItsBuild(t, where, stepScripts(t, where, w.Jobs[name].Steps, env, nil))
	}
	if t.Failed() {
		t.FailNow()
	}
	root := t.TempDir()
	download := filepath.Join(root, "merge")
	var wg sync.WaitGroup
	for _, shard := range shards {
		wg.Go(func() {
			ws := filepath.Join(root, fmt.Sprint("shard-", shard))
			os.MkdirAll(ws, 0o755)
			os.WriteFile(filepath.Join(ws, "idemspec.yaml"), target, 0o644)
			context := map[string]string{"matrix.shard": fmt.Sprint(shard), "strategy.job-total": fmt.Sprint(len(shards))}
			for i, step := range shardJob.Steps {
				where := fmt.Sprintf("%s: job shard %d step %d (%s)", file, shard, i+1, step.Name)
				switch {
				case step.Uses == "actions/upload-artifact@v4":
					name, path := withContext(step.With["name"], context), withContext(step.With["path"], context)
					copyDir(t, filepath.Join(ws, path), filepath.Join(download, "shards", name))
				case step.Run != "" && !builds(ciScript{script: step.Run}):
					s := ciScript{where, expand(t, where, withContext(step.Run, context), merge(env, step.Env), nil), merge(env, step.Env)}
					code, out := bash(t, ws, filepath.Dir(binary), s)
					checkRunExit(t, where, code, out, filepath.Join(ws, "idemspec-shard-"+fmt.Sprint(shard), "report.json"))
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	code := -1
	for i, step := range mergeJob.Steps {
		where := fmt.Sprintf("%s: job merge step %d (%s)", file, i+1, step.Name)
		if step.Uses == "actions/download-artifact@v4" && step.With["path"] != "shards" {
			t.Fatalf("%s: downloads to %q; the test put the artifacts in shards/", where, step.With["path"])
		}
		if step.Run == "" || builds(ciScript{script: step.Run}) {
			continue
		}
		s := ciScript{where, expand(t, where, step.Run, merge(env, step.Env), nil), merge(env, step.Env)}
		c, out := bash(t, download, filepath.Dir(binary), s)
		if strings.Contains(step.Run, "report --merge") {
			code = c
			t.Logf("%s: exit %d\n%s", where, c, out)
		} else if c != 0 {
			t.Fatalf("%s: exit %d\n%s", where, c, out)
		}
	}
	if code < 0 {
		t.Fatalf("%s: the merge job runs no idemspec report --merge", file)
	}
	return readMerged(t, filepath.Join(download, "idemspec-report", "report.json")), code
}

// kubeShards runs the Indexed Job's pods, one process per completion
// index, on one directory standing for the shared volume (and the
// target file's), then the merge Job's pod; each container runs its
// command as the kubelet would (bash -c, no -e).
func kubeShards(t *testing.T, target []byte, seed string) (reports.Report, int) {
	file := filepath.Join(ciExamples, "kubernetes-indexed-job.yaml")
	volume := t.TempDir()
	if err := os.WriteFile(filepath.Join(volume, "idemspec.yaml"), target, 0o644); err != nil {
		t.Fatal(err)
	}
	var shards, mergeJob *kubeJob
	jobs := kubeJobs(t, file)
	for i := range jobs {
		if jobs[i].Spec.CompletionMode == "Indexed" {
			shards = &jobs[i]
		} else {
			mergeJob = &jobs[i]
		}
	}
	if shards == nil || mergeJob == nil {
		t.Fatalf("%s: want an Indexed Job and a merge Job", file)
	}
	for _, j := range jobs {
		runsAfterItsBuild(t, file+": job "+j.Metadata.Name, j.scripts(file, volume))
	}
	if t.Failed() {
		t.FailNow()
	}
	n := shards.Spec.Completions
	pod := func(j *kubeJob, index int) (int, string) {
		scripts := slices.DeleteFunc(j.scripts(file, volume), builds)
		if len(scripts) != 1 {
			t.Fatalf("%s: job %s: want one container, whose script builds idemspec, then says set +e and runs it", file, j.Metadata.Name)
		}
		s := scripts[0]
		if s.env["REPORTS"] != volume || !sameClaim(*j, *shards) {
			t.Fatalf("%s: job %s: REPORTS %q must be the reports volume's mount, the claim the shards' Job's", file, j.Metadata.Name, s.env["REPORTS"])
		}
		if got, _ := strconv.Atoi(s.env["SHARDS"]); got != n || shards.Spec.Parallelism != n {
			t.Fatalf("%s: job %s: SHARDS %q and parallelism %d must be the completions, %d", file, j.Metadata.Name, s.env["SHARDS"], shards.Spec.Parallelism, n)
		}
		s.env["IDEMSPEC_SEED"] = seed
		if index >= 0 {
			s.env["JOB_COMPLETION_INDEX"] = fmt.Sprint(index)
		}
		c := j.Spec.Template.Spec.Containers[0]
		return kubelet(t, volume, c.Command[0], append(c.Command[1:], s.script), s.env)
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			code, out := pod(shards, i)
			report := filepath.Join(volume, fmt.Sprint("shard-", i+1), "report.json")
			if code != 0 {
				t.Errorf("pod %d exited %d: a shard's pod should complete whatever its verdict\n%s", i, code, out)
			}
			b, err := os.ReadFile(filepath.Join(volume, fmt.Sprint("shard-", i+1), "exit-code"))
			got, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Errorf("pod %d left no exit-code: %v\n%s", i, err, out)
			}
			checkRunExit(t, fmt.Sprintf("pod %d", i), got, out, report)
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	code, out := pod(mergeJob, -1)
	t.Logf("merge pod: exit %d\n%s", code, out)
	return readMerged(t, filepath.Join(volume, "merged", "report.json")), code
}

// kubelet runs a container's command in dir with exactly env (and PATH
// with the idemspec under test first), bounded in time.
func kubelet(t *testing.T, dir, name string, args []string, env map[string]string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + filepath.Dir(binary) + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	for _, k := range slices.Sorted(maps.Keys(env)) {
		cmd.Env = append(cmd.Env, k+"="+env[k])
	}
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("%s did not finish in time:\n%s", name, out)
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), string(out)
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

func sameClaim(a, b kubeJob) bool {
	claim := func(j kubeJob) string {
		for _, v := range j.Spec.Template.Spec.Volumes {
			if v.Name == "reports" {
				return v.PersistentVolumeClaim.ClaimName
			}
		}
		return ""
	}
	return claim(a) != "" && claim(a) == claim(b)
}

// checkRunExit: a shard's run exits as its report says it should.
func checkRunExit(t *testing.T, where string, code int, out, report string) {
	t.Helper()
	r, err := reports.ReadJSON(report)
	if err != nil {
		t.Errorf("%s (exit %d): %v\n%s", where, code, err, out)
		return
	}
	if r.Run.Shard == nil || code != r.ExitCode() {
		t.Errorf("%s: exit %d, shard %v; its report says exit %d\n%s", where, code, r.Run.Shard, r.ExitCode(), out)
	}
}

func readMerged(t *testing.T, path string) reports.Report {
	t.Helper()
	r, err := reports.ReadJSON(path)
	if err != nil {
		t.Fatalf("the merged report: %v", err)
	}
	return r
}

// sameRun: the merged report holds the unsharded run's checks, in its
// order, with its verdicts, each from a shard, and exits as it did.
func sameRun(t *testing.T, want reports.Report, wantCode int, got reports.Report, code int) {
	t.Helper()
	verdicts := func(r reports.Report) []string {
		var out []string
		for _, c := range r.Checks {
			out = append(out, c.Label()+" "+string(c.Verdict))
		}
		return out
	}
	if w, g := verdicts(want), verdicts(got); !slices.Equal(w, g) {
		t.Errorf("merged checks:\n%s\nthe unsharded run's:\n%s", strings.Join(g, "\n"), strings.Join(w, "\n"))
	}
	if got.Summary != want.Summary || code != wantCode {
		t.Errorf("merged: %+v, exit %d; unsharded: %+v, exit %d", got.Summary, code, want.Summary, wantCode)
	}
	shards := map[int]bool{}
	for _, c := range got.Checks {
		shards[c.Shard] = true
	}
	if len(shards) != len(got.Run.Shards) || shards[0] || len(got.Run.Shards) < 2 {
		t.Errorf("the merged checks came from shards %v; the report lists %d", slices.Sorted(maps.Keys(shards)), len(got.Run.Shards))
	}
}

// withContext replaces the GitHub expressions of a matrix job by one
// job's values.
func withContext(s string, context map[string]string) string {
	for k, v := range context {
		s = strings.ReplaceAll(s, "${{ "+k+" }}", v)
	}
	return s
}

// copyDir copies the files of from (one level, as a report directory
// has) into to, as an artifact's upload and download do.
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Errorf("upload: %v", err)
		return
	}
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err == nil {
			err = os.WriteFile(filepath.Join(to, e.Name()), b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestShardDryRunsPartThePlan: the dry runs of shards 1/3 to 3/3 list,
// between them, each check of the unsharded plan once, and a bad
// --shard is a usage error that says the form.
func TestShardDryRunsPartThePlan(t *testing.T) {
	t.Parallel()
	rows := func(out string) []string {
		var ids []string
		for _, line := range strings.Split(out, "\n") {
			f := strings.Fields(line)
			if len(f) > 1 && f[0] != "CHECK" && f[0] != "preflight" && f[0] != "total" && f[0] != "limits:" && f[0] != "cleanup:" &&
				f[0] != "idemspec" && f[0] != "shard" && f[0] != "oracle" {
				ids = append(ids, f[0])
			}
		}
		return ids
	}
	whole := idemspec(t, "run", "--dry-run")
	want := rows(whole.stdout)
	var got []string
	for i := 1; i <= 3; i++ {
		r := idemspec(t, "run", "--dry-run", "--shard", fmt.Sprintf("%d/3", i))
		if r.code != 0 || !strings.Contains(r.stdout, fmt.Sprintf("shard %d/3: ", i)) {
			t.Fatalf("--shard %d/3: exit %d\n%s%s", i, r.code, r.stdout, r.stderr)
		}
		ids := rows(r.stdout)
		if len(ids) == 0 || len(ids) == len(want) {
			t.Errorf("shard %d/3 plans %v: not a slice of %v", i, ids, want)
		}
		got = append(got, ids...)
	}
	slices.SortFunc(got, check.CompareID)
	if !slices.Equal(got, want) {
		t.Errorf("the shards plan %v between them, the whole run %v", got, want)
	}
	for _, bad := range []string{"0/3", "4/3", "3", "a/b"} {
		r := idemspec(t, "run", "--dry-run", "--shard", bad)
		if r.code != 2 || !strings.Contains(r.stderr, "INDEX") {
			t.Errorf("--shard %s: exit %d, stderr %q; want 2 and the form INDEX/COUNT", bad, r.code, r.stderr)
		}
	}
}

// TestMergeRefusalsAreClear: report --merge of reports that are not one
// suite's shards exits 2 with a line that names the files and the
// difference, and writes nothing.
func TestMergeRefusalsAreClear(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	shard := func(name string, index int, version, digest string) string {
		s := &reports.Shard{Index: index, Count: 2, Operations: []string{""}, Checks: 1}
		var cs []reports.CheckResult
		if index == 1 {
			cs = []reports.CheckResult{{Entry: check.Entry{ID: "S1", Title: "should", Level: check.MUST, Group: "core"}, Verdict: check.PASS}}
		}
		r := reports.New(reports.Run{Complete: true}, reports.Meta{Version: version, RunID: name, Shard: s,
			Target: reports.Target{Name: "api", Source: "idemspec.yaml", Digest: digest}}, cs)
		p := filepath.Join(dir, name+".json")
		if err := reports.WriteFileAtomic(p, func(w io.Writer) error { return reports.WriteJSON(w, r) }); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := shard("a", 1, "v1", "aaaa"), shard("b", 2, "v1", "aaaa")
	out := filepath.Join(dir, "merged")
	for _, c := range []struct {
		files []string
		want  string
	}{
		{[]string{a, shard("v2", 2, "v2", "aaaa")}, "by idemspec v1 and " + filepath.Join(dir, "v2.json") + " by idemspec v2: run every shard with the same idemspec"},
		{[]string{a, shard("other", 2, "v1", "bbbb")}, "tested idemspec.yaml (sha256 bbbb): run every shard with the same target file"},
		{[]string{a}, "shard 2/2 missing"},
		{[]string{a, a}, "are both shard 1/2"},
	} {
		r := idemspec(t, append([]string{"report", "--merge", "--out", out}, c.files...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("merge %v: exit %d, stderr %q; want 2 and one line saying %q", c.files, r.code, r.stderr, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("a refused merge wrote %s", out)
		}
	}
	if r := idemspec(t, "report", "--merge", "--out", out, b, a); r.code != 0 || !strings.Contains(r.stdout, "2 shards, 1 checks: 1 pass") {
		t.Errorf("merge of both shards: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
