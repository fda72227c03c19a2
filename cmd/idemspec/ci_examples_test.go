package main_test

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/idemspec/idemspec/internal/testenv"
)

// ciExamples holds the CI files a user copies (docs/CI.md).
var ciExamples = filepath.Join("..", "..", "examples", "ci")

// A ciStep is a step of a GitHub workflow or composite action: a shell
// script (run) or another action (uses), each with its environment.
type ciStep struct {
	Name string            `yaml:"name"`
	Run  string            `yaml:"run"`
	Uses string            `yaml:"uses"`
	Env  map[string]string `yaml:"env"`
	With map[string]string `yaml:"with"`
}

// githubWorkflow and composite are the parts of GitHub's schemas the
// examples' scripts depend on.
type githubWorkflow struct {
	Env  map[string]string `yaml:"env"`
	Jobs map[string]struct {
		Env   map[string]string `yaml:"env"`
		Steps []ciStep          `yaml:"steps"`
	} `yaml:"jobs"`
}

type composite struct {
	Inputs map[string]struct {
		Required bool   `yaml:"required"`
		Default  string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Using string   `yaml:"using"`
		Steps []ciStep `yaml:"steps"`
	} `yaml:"runs"`
}

// gitlabJob is a GitLab CI job: each script line runs in one shell.
type gitlabJob struct {
	Variables map[string]string `yaml:"variables"`
	Script    []string          `yaml:"script"`
	Artifacts struct {
		Paths   []string `yaml:"paths"`
		Reports struct {
			JUnit string `yaml:"junit"`
		} `yaml:"reports"`
	} `yaml:"artifacts"`
}

// A ciScript is one shell script a CI file runs, with its environment.
type ciScript struct {
	where, script string
	env           map[string]string
}

// ciTarget is a target file as a CI job has it: the API is a service,
// reached by a name that is not loopback.
const ciTarget = "name: api\nbase_url: http://api:8080\n" + createAndList + `oracle:
  list: {path: "/resources?marker={{.Marker}}", items: items}
lookup: {path: "/idempotency-keys/{{.Key}}"}
`

// actionInputs are what a workflow would pass the composite action;
// args holds two flags, which the action must split.
var actionInputs = map[string]string{
	"target": "idemspec.yaml", "args": "--allow-remote --strict", "report-dir": "idemspec-report", "version": pinnedCommit,
}

// pinnedCommit is the commit of idemspec's source the examples build:
// TestCIExamplesBuildAtThePinnedCommit builds it.
const pinnedCommit = "b8f154b09616dddb89da7fadccbda88f17186e91"

// goInstallAt finds `go install PACKAGE@VERSION` anywhere in a file,
// a comment's included: no version of idemspec is released to install.
var goInstallAt = regexp.MustCompile(`go install\s+"?\S*@`)

// idemspecCommand finds a line that runs idemspec (not a path that
// merely names it, as idemspec-report/ does).
var idemspecCommand = regexp.MustCompile(`(?m)(^|[;&|]\s*)idemspec\s`)

// TestCIExamplesAcceptedByDryRun parses every file in examples/ci as
// YAML and runs each of its scripts that calls idemspec with bash, as the
// CI would, against a CI-like target file (a service hostname), with
// `idemspec run` turned into `idemspec run --dry-run`: every command line
// must be accepted, --allow-remote included. The scripts that build
// idemspec must build this repository's source at pinnedCommit, and no
// file may install idemspec by version.
func TestCIExamplesAcceptedByDryRun(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(ciExamples, "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CI examples in %s (%v)", ciExamples, err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			scripts := ciScripts(t, file)
			if text, err := os.ReadFile(file); err != nil || goInstallAt.Match(text) {
				t.Errorf("%s: installs idemspec by version (%v): %s", file, err, goInstallAt.Find(text))
			}
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "idemspec.yaml"), []byte(ciTarget), 0o644); err != nil {
				t.Fatal(err)
			}
			bin, calls := dryRunWrapper(t)
			ran := 0
			for _, s := range scripts {
				if builds(s) {
					checkBuildScript(t, s)
					continue
				}
				// A merge needs the shards' reports: TestShardExamplesByHand
				// runs it after them.
				if !idemspecCommand.MatchString(s.script) || strings.Contains(s.script, "report --merge") {
					continue
				}
				ran++
				if code, out := bash(t, dir, bin, s); code != 0 {
					t.Errorf("%s: exit %d\n%s\n%s", s.where, code, s.script, out)
				}
			}
			if log, _ := os.ReadFile(calls); ran == 0 || !strings.Contains(string(log), "run --dry-run") {
				t.Errorf("%s: no idemspec run command found (ran %d scripts; calls: %q)", file, ran, log)
			}
		})
	}
}

// TestGitHubExampleByHand runs the GitHub workflow's steps as a person
// would by hand, the same commands in the same order, against `idemspec
// serve` on loopback: the idemspec under test stands in for the install
// step, and the actions (upload, publish) are checked to find the files
// they name. The run writes the four reports and the step summary gets
// report.md.
func TestGitHubExampleByHand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	url := serve(t, "--db", filepath.Join(dir, "api.db"))
	target := strings.Replace(ciTarget, "http://api:8080", url, 1)
	if err := os.WriteFile(filepath.Join(dir, "idemspec.yaml"), []byte(target), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(ciExamples, "github-actions.yml")
	var w githubWorkflow
	decodeYAML(t, file, &w)
	job, ok := w.Jobs["idemspec"]
	if !ok {
		t.Fatalf("%s: no job idemspec", file)
	}
	runsAfterItsBuild(t, file+": job idemspec", stepScripts(t, file+": job idemspec", job.Steps, job.Env, nil))
	summary := filepath.Join(t.TempDir(), "step-summary.md")
	var uses []ciStep
	for i, step := range job.Steps {
		where := fmt.Sprintf("%s: step %d (%s)", file, i+1, step.Name)
		if step.Uses != "" {
			uses = append(uses, step)
			continue
		}
		if builds(ciScript{script: step.Run}) {
			continue // the binary under test is on PATH instead
		}
		env := merge(job.Env, step.Env)
		env["GITHUB_STEP_SUMMARY"] = summary
		s := ciScript{where, expand(t, where, step.Run, env, nil), env}
		if code, out := bash(t, dir, filepath.Dir(binary), s); code != 0 {
			t.Fatalf("%s: exit %d\n%s\n%s", where, code, s.script, out)
		}
	}
	reportDir := filepath.Join(dir, "idemspec-report")
	for _, name := range []string{"report.json", "junit.xml", "report.md", "report.html", "report.sarif"} {
		if _, err := os.Stat(filepath.Join(reportDir, name)); err != nil {
			t.Errorf("the run left no %s: %v", name, err)
		}
	}
	md, err := os.ReadFile(filepath.Join(reportDir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(summary); err != nil || len(md) == 0 || !bytes.Contains(got, md) {
		t.Errorf("the step summary does not hold report.md (%v):\n%s", err, got)
	}
	for _, step := range uses {
		for _, key := range []string{"path", "report_paths", "sarif_file"} {
			if p, ok := step.With[key]; ok {
				if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
					t.Errorf("step %q: %s %q: %v", step.Name, key, p, err)
				}
			}
		}
	}
}

// ciScripts decodes a CI example by its kind and returns its scripts
// with ${{ }} expressions expanded; an unknown file fails, so a new
// example gets a place here.
func ciScripts(t *testing.T, file string) []ciScript {
	t.Helper()
	var out []ciScript
	steps := func(where string, steps []ciStep, env map[string]string, inputs map[string]string) {
		out = append(out, stepScripts(t, where, steps, env, inputs)...)
	}
	switch filepath.Base(file) {
	case "github-actions.yml", "github-actions-shards.yml":
		var w githubWorkflow
		decodeYAML(t, file, &w)
		for name, job := range w.Jobs {
			env := merge(job.Env, nil)
			for k, v := range w.Env {
				env[k] = expand(t, file, v, nil, nil)
			}
			steps(file+": job "+name, job.Steps, env, nil)
		}
	case "action.yml":
		var a composite
		decodeYAML(t, file, &a)
		if a.Runs.Using != "composite" {
			t.Errorf("%s: runs.using %q, want composite", file, a.Runs.Using)
		}
		if got := slices.Sorted(maps.Keys(a.Inputs)); !slices.Equal(got, slices.Sorted(maps.Keys(actionInputs))) {
			t.Errorf("%s: inputs %v, want %v", file, got, slices.Sorted(maps.Keys(actionInputs)))
		}
		steps(file, a.Runs.Steps, map[string]string{}, actionInputs)
	case "kubernetes-indexed-job.yaml":
		for _, j := range kubeJobs(t, file) {
			out = append(out, j.scripts(file, ".")...)
		}
	case "gitlab-ci.yml":
		var jobs map[string]gitlabJob
		decodeYAML(t, file, &jobs)
		for name, job := range jobs {
			for i, line := range job.Script {
				out = append(out, ciScript{fmt.Sprintf("%s: job %s line %d", file, name, i+1), line, merge(job.Variables, nil)})
			}
			if !strings.HasPrefix(job.Artifacts.Reports.JUnit, "idemspec-report/") {
				t.Errorf("%s: job %s publishes junit %q, not the report directory's", file, name, job.Artifacts.Reports.JUnit)
			}
		}
	default:
		t.Fatalf("%s: an unknown kind of CI example: teach this test to read it", file)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no script", file)
	}
	return out
}

// stepScripts are the run steps of a GitHub job or composite action, in
// order, each with env and its own environment, expressions expanded.
func stepScripts(t *testing.T, where string, steps []ciStep, env, inputs map[string]string) []ciScript {
	t.Helper()
	var out []ciScript
	for i, step := range steps {
		if step.Run == "" {
			continue
		}
		e := merge(env, nil)
		for k, v := range step.Env {
			e[k] = expand(t, where, v, env, inputs)
		}
		w := fmt.Sprintf("%s step %d (%s)", where, i+1, step.Name)
		out = append(out, ciScript{w, expand(t, w, step.Run, e, inputs), e})
	}
	return out
}

// expression is a GitHub expression, ${{ ... }}.
var expression = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// expand replaces the expressions a script may hold: inputs.NAME and
// env.NAME. Any other fails the test, which must then learn its value.
func expand(t *testing.T, where, s string, env, inputs map[string]string) string {
	t.Helper()
	return expression.ReplaceAllStringFunc(s, func(m string) string {
		expr := expression.FindStringSubmatch(m)[1]
		if name, ok := strings.CutPrefix(expr, "inputs."); ok {
			if v, ok := inputs[name]; ok {
				return v
			}
		}
		if name, ok := strings.CutPrefix(expr, "env."); ok {
			if v, ok := env[name]; ok {
				return v
			}
		}
		if v, ok := githubContext[expr]; ok {
			return v
		}
		t.Fatalf("%s: cannot expand %s", where, m)
		return ""
	})
}

// builds says whether a script builds idemspec.
func builds(s ciScript) bool {
	return strings.Contains(s.script, "git clone") || strings.Contains(s.script, "go install")
}

// checkBuildScript: every script that builds idemspec clones this
// module's repository and checks out IDEMSPEC_COMMIT, set to
// pinnedCommit; none installs a version by name (v0.1.0 was never
// released: a user's first step failed with "not available").
func checkBuildScript(t *testing.T, s ciScript) {
	t.Helper()
	if strings.Contains(s.script, "go install") || !strings.Contains(s.script, "git clone --quiet https://github.com/idemspec/idemspec.git") ||
		!strings.Contains(s.script, `checkout --quiet --detach "$IDEMSPEC_COMMIT"`) || s.env["IDEMSPEC_COMMIT"] != pinnedCommit {
		t.Errorf("%s: must clone github.com/idemspec/idemspec and check out IDEMSPEC_COMMIT=%s (got %q):\n%s", s.where, pinnedCommit, s.env["IDEMSPEC_COMMIT"], s.script)
	}
}

// TestCIExamplesBuildAtThePinnedCommit runs each example's build
// script as the CI would, its clone of github.com/idemspec/idemspec
// redirected to this repository (git's url.insteadOf) and the modules
// read from the local cache: the pinned commit exists, builds, and the
// binary it leaves runs and is put on the PATH of the steps after.
func TestCIExamplesBuildAtThePinnedCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds idemspec at the pinned commit: the full tier's")
	}
	// Its builds are CPU the matrices, waiting on their targets, leave
	// idle: run beside them, not before them.
	t.Parallel()
	repo, err := exec.Command("git", "rev-parse", "--path-format=absolute", "--git-common-dir").Output()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("not a git repository: %v", err)
		}
		t.Skipf("not a git repository (%v)", err)
	}
	commit := pinnedCommit
	if err := exec.Command("git", "cat-file", "-e", pinnedCommit+"^{commit}").Run(); err != nil {
		shallow, _ := exec.Command("git", "rev-parse", "--is-shallow-repository").Output()
		if strings.TrimSpace(string(shallow)) != "true" {
			t.Fatalf("the examples pin %s, which is no commit of this repository: %v", pinnedCommit, err)
		}
		// A shallow clone (CI's, often) holds no history to find the
		// pin in: the scripts are still run for real, at HEAD.
		head, err := exec.Command("git", "rev-parse", "HEAD").Output()
		if err != nil {
			t.Fatal(err)
		}
		commit = strings.TrimSpace(string(head))
		t.Logf("a shallow clone without %s: the build scripts run at HEAD %s", pinnedCommit, commit)
	}
	modcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(ciExamples, "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CI examples in %s (%v)", ciExamples, err)
	}
	if got, want := names(files), slices.Sorted(maps.Keys(ciBuilds)); !slices.Equal(got, want) {
		t.Fatalf("examples/ci holds %v, ciBuilds knows %v: say how many scripts of each build idemspec", got, want)
	}
	// Every script clones into the same directory, emptied between
	// them, and builds with -trimpath: without it the source's path is
	// part of what Go's build cache keys a package by, and a new
	// temporary directory each run would compile the pinned commit's
	// packages anew every time (minutes of CPU); with it they are
	// compiled once per machine, and each build after is a link.
	tmp := t.TempDir()
	built := map[string]int{}
	// Jobs of one example, and examples of one CI system, repeat one
	// build script word for word: it runs once, and a build is a link of
	// the whole binary (seconds of CPU) however warm the cache.
	ran := map[string]string{}
	for _, file := range files {
		name := filepath.Base(file)
		for _, s := range ciScripts(t, file) {
			if !builds(s) {
				continue
			}
			built[name]++
			same := sameScript(s)
			if first, ok := ran[same]; ok {
				t.Logf("%s: the script of %s, built once", s.where, first)
				continue
			}
			ran[same] = s.where
			if err := os.RemoveAll(filepath.Join(tmp, "idemspec-src")); err != nil {
				t.Fatal(err)
			}
			s.env = merge(s.env, map[string]string{
				"RUNNER_TEMP": tmp, "TMPDIR": tmp,
				"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "url." + strings.TrimSpace(string(repo)) + ".insteadOf",
				"GIT_CONFIG_VALUE_0": "https://github.com/idemspec/idemspec.git",
				"GOFLAGS":            "-mod=mod -trimpath", "GOPROXY": "off", "GOTOOLCHAIN": "local", "GOMODCACHE": strings.TrimSpace(string(modcache)),
				"IDEMSPEC_COMMIT": commit,
			})
			// A build of the whole module on a busy machine: minutes the
			// first time, seconds once the build cache holds it; bounded by
			// the test binary's deadline, not a guess at the machine's load.
			ctx, cancel := testenv.UntilDeadline(t)
			code, out := bashIn(ctx, t, tmp, filepath.Dir(binary), s)
			cancel()
			if code != 0 {
				t.Errorf("%s: exit %d\n%s\n%s", s.where, code, s.script, out)
				continue
			}
			bin := filepath.Join(tmp, "idemspec-src", "bin", "idemspec")
			v, err := exec.Command(bin, "version").Output()
			if err != nil || !strings.Contains(string(v), "idemspec") {
				t.Errorf("%s: the built %s: %v %s", s.where, bin, err, v)
			}
		}
	}
	for name, want := range ciBuilds {
		if built[name] != want {
			t.Errorf("%s: %d scripts build idemspec, want %d", name, built[name], want)
		}
	}
}

// sameScript is what a build script runs: its lines without their
// indentation, and its environment.
func sameScript(s ciScript) string {
	var b strings.Builder
	for _, line := range strings.Split(s.script, "\n") {
		b.WriteString(strings.TrimSpace(line) + "\n")
	}
	for _, k := range slices.Sorted(maps.Keys(s.env)) {
		b.WriteString(k + "=" + s.env[k] + "\n")
	}
	return b.String()
}

// ciBuilds is how many scripts of each CI example build idemspec: one
// per job (the sharded examples' shard and merge jobs build it each).
var ciBuilds = map[string]int{
	"github-actions.yml": 1, "action.yml": 1, "gitlab-ci.yml": 1,
	"github-actions-shards.yml": 2, "kubernetes-indexed-job.yaml": 2,
}

// names are the base names of files, sorted.
func names(files []string) []string {
	var out []string
	for _, f := range files {
		out = append(out, filepath.Base(f))
	}
	return slices.Sorted(slices.Values(out))
}

// runsAfterItsBuild returns a job's scripts but the one that builds
// idemspec, for which the idemspec under test stands in when a test runs
// the job by hand: the job must build idemspec once, at the pinned
// commit, before any script runs it.
func runsAfterItsBuild(t *testing.T, job string, scripts []ciScript) []ciScript {
	t.Helper()
	var rest []ciScript
	built := 0
	for _, s := range scripts {
		switch {
		case builds(s):
			checkBuildScript(t, s)
			built++
			continue
		case built == 0 && idemspecCommand.MatchString(s.script):
			t.Errorf("%s: runs idemspec before the job builds it:\n%s", s.where, s.script)
		}
		rest = append(rest, s)
	}
	if built != 1 {
		t.Errorf("%s: %d scripts build idemspec, want one", job, built)
	}
	return rest
}

// dryRunWrapper is a directory holding an idemspec that logs its
// arguments and runs the real binary, `run` as `run --dry-run`.
func dryRunWrapper(t *testing.T) (dir, calls string) {
	t.Helper()
	dir = t.TempDir()
	calls = filepath.Join(dir, "calls.log")
	script := fmt.Sprintf(`#!/bin/sh
if [ "$1" = run ]; then shift; set -- run --dry-run "$@"; fi
echo "$*" >> %q
exec %q "$@"
`, calls, binary)
	if err := os.WriteFile(filepath.Join(dir, "idemspec"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, calls
}

// bash runs a script as GitHub and GitLab run one (bash -e, pipefail)
// in dir, with bin first on PATH and the files GitHub's runner provides.
func bash(t *testing.T, dir, bin string, s ciScript) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return bashIn(ctx, t, dir, bin, s)
}

// bashIn is bash bounded by ctx.
func bashIn(ctx context.Context, t *testing.T, dir, bin string, s ciScript) (int, string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", s.script)
	cmd.Dir = dir
	runner := t.TempDir()
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GITHUB_OUTPUT="+filepath.Join(runner, "output"), "GITHUB_PATH="+filepath.Join(runner, "path"),
		"GITHUB_STEP_SUMMARY="+filepath.Join(runner, "summary"))
	for k, v := range s.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("%s did not finish in time:\n%s", s.where, out)
	}
	if exit, ok := err.(*exec.ExitError); ok {
		return exit.ExitCode(), string(out)
	} else if err != nil {
		t.Fatalf("%s: %v", s.where, err)
	}
	return 0, string(out)
}

func decodeYAML(t *testing.T, file string, v any) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

func merge(a, b map[string]string) map[string]string {
	out := maps.Clone(a)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, b)
	return out
}
