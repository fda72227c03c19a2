package main_test

import (
	"os"
	"os/exec"
	"testing"
)

// requireTool finds an external program a test needs (chromium,
// xmllint). Without it the test skips on a developer's machine and
// fails in CI (CI=true), where .ci/run installs it: a missing install
// step must not turn into a green run that tested nothing.
func requireTool(t *testing.T, name, debianPackage string) string {
	t.Helper()
	return requireInstalled(t, name, "apt-get install -y "+debianPackage)
}

// requireInstalled is requireTool for a program installed by install.
func requireInstalled(t *testing.T, name, install string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is not installed and CI=true: .ci/run must install it (%s)", name, install)
	}
	t.Skipf("%s is not installed: %s (CI installs it, and this test fails there without it)", name, install)
	return ""
}

// runInto runs the suite against target with its reports in a fresh
// directory, and returns the directory.
func runInto(t *testing.T, target string, wantCode int) string {
	t.Helper()
	dir := t.TempDir()
	r := idemspec(t, "run", "--target", target, "--report-dir", dir)
	if r.code != wantCode {
		t.Fatalf("idemspec run --target %s: exit %d, want %d\n%s%s", target, r.code, wantCode, r.stdout, r.stderr)
	}
	return dir
}
