package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Build compiles the program pkg (a package path, or "." for the test's
// own) into a new temporary directory as name, for the tests that run it
// as a child process. remove deletes the directory; call it when the
// tests are done.
func Build(pkg, name string) (path string, remove func(), err error) {
	dir, err := os.MkdirTemp("", "idemspec-"+name+"-")
	if err != nil {
		return "", nil, err
	}
	remove = func() { os.RemoveAll(dir) }
	path = filepath.Join(dir, name)
	if out, err := exec.Command("go", "build", "-o", path, pkg).CombinedOutput(); err != nil {
		remove()
		return "", nil, fmt.Errorf("build %s: %w\n%s", name, err, out)
	}
	return path, remove, nil
}

// MustBuild is Build for a TestMain: a failed build ends the test binary
// with the compiler's output.
func MustBuild(pkg, name string) (path string, remove func()) {
	path, remove, err := Build(pkg, name)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return path, remove
}
