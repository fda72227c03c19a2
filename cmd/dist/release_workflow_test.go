package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// releaseWorkflow is the part of GitHub's workflow schema the release
// workflow uses.
type releaseWorkflow struct {
	On struct {
		Push struct {
			Tags []string `yaml:"tags"`
		} `yaml:"push"`
	} `yaml:"on"`
	Permissions map[string]string `yaml:"permissions"`
	Jobs        map[string]struct {
		Steps []struct {
			Name string            `yaml:"name"`
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			With map[string]string `yaml:"with"`
			Env  map[string]string `yaml:"env"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// TestReleaseWorkflow holds .github/workflows/release.yml to what it
// releases: a v* tag runs goreleaser on .goreleaser.yaml (config
// version 2, which TestGoreleaserMatchesDist holds to cmd/dist) with
// the token and the tags it needs, and the image step builds the
// Containerfile from the directory cmd/dist leaves the linux binary in.
// The full tier also runs that step's cmd/dist command and finds the
// binary where the image step reads it.
func TestReleaseWorkflow(t *testing.T) {
	t.Parallel()
	path := filepath.Join(root, ".github", "workflows", "release.yml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var w releaseWorkflow
	if err := yaml.Unmarshal(data, &w); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(w.On.Push.Tags) != 1 || w.On.Push.Tags[0] != "v*" {
		t.Errorf("on.push.tags %q, want [v*]", w.On.Push.Tags)
	}
	if w.Permissions["contents"] != "write" || w.Permissions["packages"] != "write" {
		t.Errorf("permissions %v: the release needs contents: write, the image packages: write", w.Permissions)
	}
	job, ok := w.Jobs["release"]
	if !ok {
		t.Fatalf("%s: no job release", path)
	}
	var goreleaser, image, checkout, setupGo bool
	var distArgs []string
	var buildContext string
	for _, s := range job.Steps {
		switch {
		case strings.HasPrefix(s.Uses, "actions/checkout@"):
			checkout = s.With["fetch-depth"] == "0"
		case strings.HasPrefix(s.Uses, "actions/setup-go@"):
			setupGo = s.With["go-version-file"] == "go.mod"
		case strings.HasPrefix(s.Uses, "goreleaser/goreleaser-action@"):
			goreleaser = s.With["args"] == "release --clean" && s.With["version"] == "~> v2" &&
				s.Env["GITHUB_TOKEN"] == "${{ secrets.GITHUB_TOKEN }}"
		case strings.Contains(s.Run, "docker build"):
			image = true
			m := regexp.MustCompile(`(?m)^go run \./cmd/dist (.*)$`).FindStringSubmatch(s.Run)
			c := regexp.MustCompile(`(?m)^docker build -f Containerfile .* (\S+)$`).FindStringSubmatch(s.Run)
			if m == nil || c == nil || !strings.Contains(s.Run, "docker push") {
				t.Errorf("the image step must run cmd/dist, build the Containerfile and push:\n%s", s.Run)
				continue
			}
			distArgs, buildContext = strings.Fields(m[1]), c[1]
		}
	}
	if !checkout || !setupGo || !goreleaser || !image {
		t.Errorf("checkout with the tags %v, Go from go.mod %v, goreleaser release --clean with the token %v, the image %v: want all", checkout, setupGo, goreleaser, image)
	}
	p := Platform{"linux", "amd64"}
	want := []string{"-version", `"$version"`, "-out", "image", "-platforms", p.String()}
	if strings.Join(distArgs, " ") != strings.Join(want, " ") || buildContext != "image/"+p.BuildDir() {
		t.Fatalf("the image step runs dist %q and builds %q; want %q and image/%s", distArgs, buildContext, want, p.BuildDir())
	}
	if testing.Short() {
		return
	}
	// The step's cmd/dist command, as run for the container image's
	// test (the version is the tag's; any will do).
	out := sharedRelease(t, p)
	if _, err := os.Stat(filepath.Join(out, p.BuildDir(), p.Binary())); err != nil {
		t.Errorf("the image step's build context holds no binary: %v", err)
	}
}
