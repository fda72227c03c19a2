package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// mainPackage is the command a release ships.
const mainPackage = "./cmd/idemspec"

// buildEnv turns cgo off: the binary is static on linux and needs no C
// toolchain for any platform.
var buildEnv = []string{"CGO_ENABLED=0"}

// buildFlags are go build's flags for a release binary: -trimpath keeps
// the builder's paths out of it.
var buildFlags = []string{"-trimpath"}

// ldflags strips the symbol table and DWARF (-s -w: a third smaller) and
// links the version in, which `idemspec version` prints.
func ldflags(version string) string { return "-s -w -X main.version=" + version }

// build compiles the binary for p into dir/p.BuildDir() and returns its
// path. root is the module's directory.
func build(ctx context.Context, goTool, root string, p Platform, version, dir string) (string, error) {
	out, err := filepath.Abs(filepath.Join(dir, p.BuildDir(), p.Binary()))
	if err != nil {
		return "", err
	}
	args := append([]string{"build"}, buildFlags...)
	args = append(args, "-ldflags", ldflags(version), "-o", out, mainPackage)
	cmd := exec.CommandContext(ctx, goTool, args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), buildEnv...)
	cmd.Env = append(cmd.Env, "GOOS="+p.OS, "GOARCH="+p.Arch)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build %s: %w\n%s", p, err, msg)
	}
	return out, nil
}
