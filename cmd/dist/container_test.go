package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/internal/testenv"
)

// TestContainerImage builds the Containerfile's FROM scratch image around
// the static linux binary dist builds, and runs it: `idemspec version`
// prints the linked version, and a short run against a built-in fake
// passes (it needs /tmp, which scratch lacks). It needs podman, which
// .ci/run installs; without it the test skips, and fails with CI=true.
func TestContainerImage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds idemspec and a container image; `make test` runs it")
	}
	t.Parallel()
	podman := requirePodman(t)
	const version = linuxVersion
	ctx, cancel := testenv.UntilDeadline(t)
	defer cancel()
	p := Platform{"linux", runtime.GOARCH}
	out := sharedRelease(t, p)
	buildContext := filepath.Join(out, p.BuildDir())
	assertStatic(t, filepath.Join(buildContext, p.Binary()))

	tag := "localhost/idemspec-test:" + strings.ToLower(rand.Text())
	containerfile, err := filepath.Abs(filepath.Join(root, "Containerfile"))
	if err != nil {
		t.Fatal(err)
	}
	podmanRun(ctx, t, podman, "build", "--quiet", "-f", containerfile, "-t", tag, buildContext)
	t.Cleanup(func() { exec.Command(podman, "rmi", "--force", tag).Run() })

	if got := podmanRun(ctx, t, podman, containerArgs(tag, "version")...); got != "idemspec "+version+"\n" {
		t.Errorf("idemspec version in the image: %q, want %q", got, "idemspec "+version+"\n")
	}
	got := podmanRun(ctx, t, podman, containerArgs(tag, "run", "--target", "fake:reference", "--label-filter", "S1 || S6", "--report-dir", "/tmp/report")...)
	for _, line := range []string{"PASS  S1 ", "PASS  S6 ", ": 2 pass, 0 fail, 0 warn,"} {
		if !strings.Contains(got, line) {
			t.Errorf("a run in the image printed no %q:\n%s", line, got)
		}
	}
}

// containerArgs runs the image with idemspec's arguments. The container
// has no network but its own loopback (a run talks to nothing else).
// Both ulimits are lowered to values any host allows: podman's defaults
// raise them, which a sandbox may forbid; and runc, where installed, is
// chosen over crun, which refuses hosts with hybrid cgroups (v1 and v2
// mounted together).
func containerArgs(tag string, args ...string) []string {
	out := []string{"run", "--rm", "--network=none", "--ulimit", "nofile=4096:4096", "--ulimit", "nproc=4096:4096"}
	if _, err := exec.LookPath("runc"); err == nil {
		out = append([]string{"--runtime", "runc"}, out...)
	}
	return append(append(out, tag), args...)
}

func podmanRun(ctx context.Context, t *testing.T, podman string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, podman, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("podman %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// assertStatic fails unless path is an ELF executable with no
// interpreter and no shared library: what FROM scratch can run.
func assertStatic(t *testing.T, path string) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer f.Close()
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP {
			t.Errorf("%s has a dynamic loader: not static", path)
		}
	}
	if libs, err := f.ImportedLibraries(); err != nil || len(libs) > 0 {
		t.Errorf("%s needs shared libraries %v (%v): not static", path, libs, err)
	}
}

// requirePodman finds podman. Without it the test skips on a developer's
// machine and fails in CI (CI=true), where .ci/run installs it.
func requirePodman(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("podman")
	if err == nil {
		return path
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("podman is not installed and CI=true: .ci/run must install it (apt-get install -y podman runc)")
	}
	t.Skip("podman is not installed: apt-get install -y podman runc (CI installs it, and this test fails there without it)")
	return ""
}
