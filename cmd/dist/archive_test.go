package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestArchivesKeepModesAndContents packs the same members in both formats
// and reads them back: names at the root, contents intact, the
// executable bit kept.
func TestArchivesKeepModesAndContents(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	members := []member{
		{"idemspec", write("bin", "#!binary"), 0o755},
		{"LICENSE", write("license", "MIT"), 0o644},
	}
	for _, tc := range []struct {
		format string
		read   func(*testing.T, string) map[string]archived
	}{
		{"tar.gz", readTarGz},
		{"zip", readZip},
	} {
		t.Run(tc.format, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "a."+tc.format)
			if err := writeArchive(path, tc.format, members); err != nil {
				t.Fatal(err)
			}
			files := tc.read(t, path)
			if len(files) != len(members) {
				t.Errorf("%d files, want %d", len(files), len(members))
			}
			for _, m := range members {
				want, _ := os.ReadFile(m.path)
				got, ok := files[m.name]
				if !ok || string(got.data) != string(want) || got.mode != m.mode {
					t.Errorf("%s: %q mode %o, want %q mode %o", m.name, got.data, got.mode, want, m.mode)
				}
			}
		})
	}
}

// TestChecksumsVerifyAndCatchATamperedFile: the checksums file lists each
// archive once, sorted, and a changed byte fails its verification.
func TestChecksumsVerifyAndCatchATamperedFile(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, name := range []string{"b.zip", "a.tar.gz"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	sums := filepath.Join(dir, "sums.txt")
	if err := writeChecksums(sums, files); err != nil {
		t.Fatal(err)
	}
	if got := checksumNames(t, sums); got != "a.tar.gz b.zip" {
		t.Errorf("checksums list %q, want %q", got, "a.tar.gz b.zip")
	}
	if err := verifyChecksums(sums); err != nil {
		t.Fatal(err)
	}
	sha256sum(t, sums)
	if err := os.WriteFile(files[0], []byte("tampered"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := verifyChecksums(sums); err == nil || !strings.Contains(err.Error(), "b.zip") {
		t.Errorf("a tampered b.zip: %v, want a mismatch naming it", err)
	}
}

func TestReleaseVersion(t *testing.T) {
	describe := func(out string, err error) func() (string, error) {
		return func() (string, error) { return out, err }
	}
	for _, tc := range []struct {
		given, described string
		err              error
		want             string
	}{
		{"v1.2.3", "v9.9.9", nil, "1.2.3"},
		{"", "v1.2.3-4-gabcdef0-dirty\n", nil, "1.2.3-4-gabcdef0-dirty"},
		{"", "abcdef0\n", nil, "abcdef0"},
		{"", "", os.ErrNotExist, snapshotVersion},
	} {
		got, err := releaseVersion(tc.given, describe(tc.described, tc.err))
		if err != nil || got != tc.want {
			t.Errorf("releaseVersion(%q) with describe %q: %q, %v; want %q", tc.given, tc.described, got, err, tc.want)
		}
	}
	for _, bad := range []string{"1.2 3", "../x", "1'2"} {
		if _, err := releaseVersion(bad, describe("", nil)); err == nil {
			t.Errorf("releaseVersion(%q): no error", bad)
		}
	}
}

func TestParsePlatforms(t *testing.T) {
	got, err := parsePlatforms("linux/arm64, windows/amd64")
	if err != nil || len(got) != 2 || got[0] != (Platform{"linux", "arm64"}) || got[1] != (Platform{"windows", "amd64"}) {
		t.Errorf("parsePlatforms: %v, %v", got, err)
	}
	if _, err := parsePlatforms("plan9/386"); err == nil || !strings.Contains(err.Error(), "plan9/386") {
		t.Errorf("plan9/386: %v, want an error naming it", err)
	}
}
