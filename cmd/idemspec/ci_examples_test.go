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
	"target": "idemspec.yaml", "args": "--allow-remote --strict", "report-dir": "idemspec-report", "version": "v0.0.0-test",
}

// idemspecCommand finds a line that runs idemspec (not a path that
// merely names it, as idemspec-report/ does).
var idemspecCommand = regexp.MustCompile(`(?m)(^|[;&|]\s*)idemspec\s`)

// TestCIExamplesAcceptedByDryRun parses every file in examples/ci as
// YAML and runs each of its scripts that calls idemspec with bash, as the
// CI would, against a CI-like target file (a service hostname), with
// `idemspec run` turned into `idemspec run --dry-run`: every command line
// must be accepted, --allow-remote included. The go install lines must
// name this module's command.
func TestCIExamplesAcceptedByDryRun(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(ciExamples, "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CI examples in %s (%v)", ciExamples, err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			scripts := ciScripts(t, file)
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "idemspec.yaml"), []byte(ciTarget), 0o644); err != nil {
				t.Fatal(err)
			}
			bin, calls := dryRunWrapper(t)
			ran := 0
			for _, s := range scripts {
				if strings.Contains(s.script, "go install") {
					checkInstallLine(t, s)
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
	summary := filepath.Join(t.TempDir(), "step-summary.md")
	var uses []ciStep
	for i, step := range job.Steps {
		where := fmt.Sprintf("%s: step %d (%s)", file, i+1, step.Name)
		if step.Uses != "" {
			uses = append(uses, step)
			continue
		}
		if strings.Contains(step.Run, "go install") {
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
	for _, name := range []string{"report.json", "junit.xml", "report.md", "report.html"} {
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
		for _, key := range []string{"path", "report_paths"} {
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

// checkInstallLine: every go install of idemspec names this module's
// command at a version.
func checkInstallLine(t *testing.T, s ciScript) {
	t.Helper()
	if !strings.Contains(s.script, "github.com/idemspec/idemspec/cmd/idemspec@${IDEMSPEC_VERSION}") || s.env["IDEMSPEC_VERSION"] == "" {
		t.Errorf("%s: go install must name github.com/idemspec/idemspec/cmd/idemspec@${IDEMSPEC_VERSION}, with IDEMSPEC_VERSION set:\n%s", s.where, s.script)
	}
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
