package main_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVersionFromBuildInfo: without a version set at link time,
// `idemspec version` reports what the Go toolchain recorded: "(devel)"
// for a build without VCS stamping, the revision of the checkout with it
// (as `go install` from a module proxy records the module's version);
// with -ldflags -X main.version, that version.
func TestVersionFromBuildInfo(t *testing.T) {
	version := func(flags ...string) string {
		t.Helper()
		bin := filepath.Join(t.TempDir(), "idemspec")
		build := exec.Command("go", append(append([]string{"build"}, flags...), "-o", bin, ".")...)
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build %v: %v\n%s", flags, err, out)
		}
		out, err := exec.Command(bin, "version").Output()
		if err != nil {
			t.Fatalf("version: %v", err)
		}
		return string(out)
	}
	if got := version("-buildvcs=false"); got != "idemspec (devel)\n" {
		t.Errorf("without VCS stamping: %q, want %q", got, "idemspec (devel)\n")
	}
	if got := version("-buildvcs=false", "-ldflags", "-X main.version=1.2.3"); got != "idemspec 1.2.3\n" {
		t.Errorf("a release build: %q, want %q", got, "idemspec 1.2.3\n")
	}
	rev, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		t.Logf("not in a git checkout (%v): the VCS revision is not checked", err)
		return
	}
	if got := version("-buildvcs=true"); !strings.Contains(got, strings.TrimSpace(string(rev))) {
		t.Errorf("with VCS stamping: %q does not name revision %s", got, rev)
	}
}
