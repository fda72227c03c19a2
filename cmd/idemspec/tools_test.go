package main_test

import (
	"os"
	"os/exec"
	"strings"
	"sync"
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

// python is the interpreter `python3` names, resolved once: a version
// manager's shim (pyenv's is a bash script that runs pyenv's before the
// interpreter) doubles a start's cost on a quiet machine and costs
// seconds on a busy one, where the Python server's thirty-odd starts in
// one run each took 4-10 s to be healthy. It falls back to "python3" when the
// interpreter cannot say where it is (or says a path with a space, which
// a command line would split).
var python = sync.OnceValue(func() string {
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	path := strings.TrimSpace(string(out))
	if err != nil || path == "" || strings.ContainsAny(path, " \t") {
		return "python3"
	}
	return path
})
