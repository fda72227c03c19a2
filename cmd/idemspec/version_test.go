package main_test

import (
	"os"
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
	long(t) // three builds of the binary
	t.Parallel()
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
	// The toolchain stamps a clone, not a git worktree (its .git is a
	// file): what it did not record, idemspec cannot report.
	if info, err := os.Stat(filepath.Join(strings.TrimSpace(gitOutput(t, "rev-parse", "--show-toplevel")), ".git")); err != nil || !info.IsDir() {
		t.Logf("not a plain git clone (.git is not a directory): the VCS revision is not checked")
		return
	}
	if got := version("-buildvcs=true"); !strings.Contains(got, strings.TrimSpace(string(rev))) {
		t.Errorf("with VCS stamping: %q does not name revision %s", got, rev)
	}
}

func gitOutput(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", args...).Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}
