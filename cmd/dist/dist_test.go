package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"debug/macho"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/internal/testenv"
)

// root is the module's directory, seen from this package's tests.
const root = "../.."

// TestReleaseForeignPlatform cross-compiles idemspec for darwin/arm64 as
// `make dist` does and checks what a user downloads: the archive holds
// an arm64 Mach-O binary with the version linked in, executable, beside
// LICENSE and README.md, and the checksums file verifies it.
func TestReleaseForeignPlatform(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles idemspec (seconds with a warm build cache, minutes without); `make test` runs it")
	}
	t.Parallel()
	const version = "9.8.7-test"
	out := t.TempDir()
	ctx, cancel := testenv.UntilDeadline(t)
	defer cancel()
	var stdout, stderr bytes.Buffer
	args := []string{"-version", "v" + version, "-out", out, "-platforms", "darwin/arm64", "-root", root}
	if code := run(ctx, args, &stdout, &stderr); code != 0 {
		t.Fatalf("dist %v: exit %d\n%s", args, code, stderr.String())
	}
	archive := filepath.Join(out, "idemspec_"+version+"_darwin_arm64.tar.gz")
	files := readTarGz(t, archive)
	if len(files) != 3 {
		t.Errorf("archive holds %d files, want idemspec, LICENSE, README.md", len(files))
	}
	bin, ok := files["idemspec"]
	if !ok {
		t.Fatalf("no idemspec in %s", archive)
	}
	if bin.mode != 0o755 {
		t.Errorf("idemspec has mode %o, want 755", bin.mode)
	}
	exe, err := macho.NewFile(bytes.NewReader(bin.data))
	if err != nil {
		t.Fatalf("idemspec is not a Mach-O binary: %v", err)
	}
	if exe.Cpu != macho.CpuArm64 || exe.Type != macho.TypeExec {
		t.Errorf("Mach-O cpu %v type %v, want arm64 executable", exe.Cpu, exe.Type)
	}
	if !bytes.Contains(bin.data, []byte(version)) {
		t.Errorf("the binary does not hold the version %q: -X main.version did not link it", version)
	}
	license, err := os.ReadFile(filepath.Join(root, "LICENSE"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(files["LICENSE"].data, license) {
		t.Error("the archive's LICENSE differs from the repository's")
	}
	sums := filepath.Join(out, "idemspec_"+version+"_checksums.txt")
	if err := verifyChecksums(sums); err != nil {
		t.Fatal(err)
	}
	if got := checksumNames(t, sums); got != filepath.Base(archive) {
		t.Errorf("checksums file names %q, want just %q", got, filepath.Base(archive))
	}
	sha256sum(t, sums)
}

// sha256sum verifies sums with coreutils' sha256sum -c, as a user would,
// where it is installed.
func sha256sum(t *testing.T, sums string) {
	t.Helper()
	if _, err := exec.LookPath("sha256sum"); err != nil {
		t.Logf("sha256sum is not installed: the format is checked by verifyChecksums only")
		return
	}
	cmd := exec.Command("sha256sum", "-c", filepath.Base(sums))
	cmd.Dir = filepath.Dir(sums)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("sha256sum -c %s: %v\n%s", sums, err, out)
	}
}

type archived struct {
	data []byte
	mode os.FileMode
}

func readTarGz(t *testing.T, path string) map[string]archived {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	files := map[string]archived{}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[h.Name] = archived{data, os.FileMode(h.Mode).Perm()}
	}
}

func readZip(t *testing.T, path string) map[string]archived {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer zr.Close()
	files := map[string]archived{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		files[f.Name] = archived{data, f.Mode().Perm()}
	}
	return files
}

// verifyChecksums checks each line of a sha256sum-format file against the
// file it names, beside it: what `sha256sum -c` does.
func verifyChecksums(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	lines := bufio.NewScanner(f)
	n := 0
	for lines.Scan() {
		sum, name, ok := strings.Cut(lines.Text(), "  ")
		if !ok || len(sum) != 64 {
			return errors.New(path + ": not sha256sum's format: " + lines.Text())
		}
		got, err := sha256File(filepath.Join(filepath.Dir(path), name))
		if err != nil {
			return err
		}
		if got != sum {
			return errors.New(path + ": " + name + ": checksum mismatch")
		}
		n++
	}
	if n == 0 {
		return errors.New(path + ": no checksum")
	}
	return lines.Err()
}

// checksumNames is the names a checksums file lists, space-separated.
func checksumNames(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		_, name, _ := strings.Cut(line, "  ")
		names = append(names, name)
	}
	return strings.Join(names, " ")
}
