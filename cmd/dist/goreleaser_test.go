package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"text/template"

	"go.yaml.in/yaml/v3"
)

// goreleaserConfig is the part of goreleaser's schema .goreleaser.yaml
// uses. It is decoded with KnownFields: a field added to the file (an
// ignore rule, a second build) fails the test until this test and
// cmd/dist learn what it means.
type goreleaserConfig struct {
	Version     int    `yaml:"version"`
	ProjectName string `yaml:"project_name"`
	Builds      []struct {
		ID      string   `yaml:"id"`
		Main    string   `yaml:"main"`
		Binary  string   `yaml:"binary"`
		Env     []string `yaml:"env"`
		Flags   []string `yaml:"flags"`
		Ldflags []string `yaml:"ldflags"`
		Goos    []string `yaml:"goos"`
		Goarch  []string `yaml:"goarch"`
	} `yaml:"builds"`
	Archives []struct {
		ID              string   `yaml:"id"`
		Formats         []string `yaml:"formats"`
		FormatOverrides []struct {
			Goos    string   `yaml:"goos"`
			Formats []string `yaml:"formats"`
		} `yaml:"format_overrides"`
		NameTemplate string   `yaml:"name_template"`
		Files        []string `yaml:"files"`
	} `yaml:"archives"`
	Checksum struct {
		NameTemplate string `yaml:"name_template"`
		Algorithm    string `yaml:"algorithm"`
	} `yaml:"checksum"`
}

// TestGoreleaserMatchesDist holds .goreleaser.yaml to what `make dist`
// builds: the same platforms, cgo setting, flags, linked version,
// archive formats, names and contents, and checksums file. With
// goreleaser installed, `goreleaser check` validates it too.
func TestGoreleaserMatchesDist(t *testing.T) {
	path := filepath.Join(root, ".goreleaser.yaml")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := yaml.NewDecoder(f)
	dec.KnownFields(true)
	var c goreleaserConfig
	if err := dec.Decode(&c); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if c.Version != 2 || c.ProjectName != project {
		t.Errorf("version %d, project_name %q; want 2 and %q", c.Version, c.ProjectName, project)
	}
	if len(c.Builds) != 1 || len(c.Archives) != 1 {
		t.Fatalf("%d builds and %d archives, want one of each (dist builds one binary per platform)", len(c.Builds), len(c.Archives))
	}
	b, a := c.Builds[0], c.Archives[0]
	if b.Main != mainPackage || b.Binary != project {
		t.Errorf("build main %q binary %q, want %q and %q", b.Main, b.Binary, mainPackage, project)
	}
	if !slices.Equal(b.Env, buildEnv) || !slices.Equal(b.Flags, buildFlags) {
		t.Errorf("build env %q flags %q, want %q and %q", b.Env, b.Flags, buildEnv, buildFlags)
	}
	var platforms []Platform
	for _, os := range b.Goos {
		for _, arch := range b.Goarch {
			platforms = append(platforms, Platform{os, arch})
		}
	}
	if !sameSet(platforms, Platforms) {
		t.Errorf("goreleaser builds %v, dist %v", platforms, Platforms)
	}
	const version = "1.2.3"
	if len(b.Ldflags) != 1 || render(t, b.Ldflags[0], version, Platform{}) != ldflags(version) {
		t.Errorf("ldflags %q render to something else than dist's %q", b.Ldflags, ldflags(version))
	}
	for _, p := range Platforms {
		formats := a.Formats
		for _, o := range a.FormatOverrides {
			if o.Goos == p.OS {
				formats = o.Formats
			}
		}
		if !slices.Equal(formats, []string{p.Format()}) {
			t.Errorf("%s: goreleaser packs %q, dist %q", p, formats, p.Format())
		}
		if got := render(t, a.NameTemplate, version, p) + "." + p.Format(); got != p.ArchiveName(version) {
			t.Errorf("%s: goreleaser names the archive %q, dist %q", p, got, p.ArchiveName(version))
		}
	}
	if !slices.Equal(a.Files, archiveFiles) {
		t.Errorf("archive files %q, dist packs %q", a.Files, archiveFiles)
	}
	if c.Checksum.Algorithm != "sha256" {
		t.Errorf("checksum algorithm %q, want sha256", c.Checksum.Algorithm)
	}
	if got := render(t, c.Checksum.NameTemplate, version, Platform{}); got != checksumsName(version) {
		t.Errorf("checksums file %q, dist writes %q", got, checksumsName(version))
	}
	goreleaserCheck(t, path)
}

// goreleaserCheck runs `goreleaser check` where goreleaser is installed.
// CI does not install it (it is not a Debian package): there the
// decoding above is the check.
func goreleaserCheck(t *testing.T, path string) {
	t.Helper()
	if _, err := exec.LookPath("goreleaser"); err != nil {
		t.Log("goreleaser is not installed: `goreleaser check` not run")
		return
	}
	cmd := exec.Command("goreleaser", "check", "--config", filepath.Base(path))
	cmd.Dir = filepath.Dir(path)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("goreleaser check: %v\n%s", err, out)
	}
}

// render expands a goreleaser template with the fields this config uses
// (goreleaser's templates are Go templates).
func render(t *testing.T, text, version string, p Platform) string {
	t.Helper()
	tmpl, err := template.New("goreleaser").Option("missingkey=error").Parse(text)
	if err != nil {
		t.Fatalf("template %q: %v", text, err)
	}
	var out strings.Builder
	data := map[string]string{"ProjectName": project, "Version": version, "Os": p.OS, "Arch": p.Arch}
	if err := tmpl.Execute(&out, data); err != nil {
		t.Fatalf("template %q: %v", text, err)
	}
	return out.String()
}

func sameSet(a, b []Platform) bool {
	if len(a) != len(b) {
		return false
	}
	for _, p := range a {
		if !slices.Contains(b, p) {
			return false
		}
	}
	return true
}
