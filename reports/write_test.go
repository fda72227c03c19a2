package reports_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/idemspec/idemspec/reports"
)

// Every report file is 0644 less the umask, and a symlink planted at a
// report path is replaced by the report, never followed.
func TestReportFilesReplaceSymlinksAndShareOneMode(t *testing.T) {
	dir, elsewhere := t.TempDir(), filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(elsewhere, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(dir, "report.json")); err != nil {
		t.Fatal(err)
	}
	paths, err := reports.WriteAll(dir, syntheticReport())
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(elsewhere); string(b) != "keep me" {
		t.Errorf("the symlink's target was written: %q", b)
	}
	umask := syscall.Umask(0)
	syscall.Umask(umask)
	want := os.FileMode(0o644 &^ umask)
	for _, p := range paths {
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		if !fi.Mode().IsRegular() || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want a regular file with %v", p, fi.Mode(), want)
		}
	}
}
