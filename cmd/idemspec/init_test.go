package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInitWritesAFileThatValidates(t *testing.T) {
	out := filepath.Join(t.TempDir(), "target.yaml")
	r := idemspec(t, "init", "--out", out, "--url", "http://127.0.0.1:9999", "--path", "/v1/payments", "--key-header", "X-Request-Key")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"base_url: http://127.0.0.1:9999", "path: /v1/payments\n", "header: X-Request-Key", "# allow_remote: true", "# cleanup:"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the file does not hold %q:\n%s", want, b)
		}
	}
	if r := idemspec(t, "validate", out); r.code != 0 || !strings.Contains(r.stdout, "ok") || !strings.Contains(r.stdout, "X-Request-Key") {
		t.Errorf("validate: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := idemspec(t, "init", "--out", out); r.code != 2 {
		t.Errorf("init over an existing file: exit %d, want 2 (never overwrite)", r.code)
	}
	if r := idemspec(t, "init", "--url", "ftp://x"); r.code != 2 {
		t.Errorf("init --url ftp://x: exit %d, want 2", r.code)
	}
}

func TestValidateSendsNothingAndNamesTheField(t *testing.T) {
	c, _, file := countingTarget(t, "")
	if r := idemspec(t, "validate", file); r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if n := c.requests(); n != 0 {
		t.Errorf("validate sent %d requests, want 0", n)
	}
	bad := writeFile(t, "bad.yaml", "base_url: http://127.0.0.1:1\ncreate:\n  path: /r\n  body: '{}'\n  id_field: id\noracle: {list: {path: /r}}\n")
	r := idemspec(t, "validate", bad)
	if r.code != 2 || !strings.Contains(r.stderr, bad+":4: create.body: must contain {{.Marker}}") {
		t.Errorf("exit %d, stderr %q: want 2 naming file, line and field", r.code, r.stderr)
	}
	// A remote target is refused as run refuses it, with the same words.
	remote := writeFile(t, "remote.yaml", "base_url: http://192.0.2.1\ncreate: {path: /r, body: '{{.Marker}} {{.Variant}}', id_field: id}\noracle: {list: {path: '/r?m={{.Marker}}'}}\n")
	v := idemspec(t, "validate", remote)
	if v.code != 2 || !strings.Contains(v.stderr, "allow_remote: true") {
		t.Errorf("validate of a remote target: exit %d, want 2 with the refusal\n%s", v.code, v.stderr)
	}
	if r := idemspec(t, "run", "--target", remote, "--dry-run"); r.stderr != v.stderr {
		t.Errorf("run and validate disagree:\nrun:      %svalidate: %s", r.stderr, v.stderr)
	}
	if r := idemspec(t, "validate", "--allow-remote", remote); r.code != 0 {
		t.Errorf("validate --allow-remote: exit %d\n%s", r.code, r.stderr)
	}
}

// --out - is the standard output, never a file named "-"; an existing
// file is refused with the way out (--force or another name), and
// --force replaces it; with --openapi too.
func TestInitOutDashAndExistingFiles(t *testing.T) {
	dir := t.TempDir()
	doc := "../../targets/openapi/testdata/reference.yaml"
	for _, args := range [][]string{{"init"}, {"init", "--openapi", doc}} {
		r := idemspec(t, append(args, "--out", "-")...)
		if r.code != 0 || !strings.HasPrefix(r.stdout, "# ") {
			t.Errorf("%q --out -: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
		}
		// The CLI runs in the test's directory.
		if _, err := os.Stat("-"); err == nil {
			os.Remove("-")
			t.Errorf("%q --out - wrote a file named -", args)
		}
		out := filepath.Join(dir, "t.yaml")
		os.WriteFile(out, []byte("old"), 0o644)
		r = idemspec(t, append(args, "--out", out)...)
		if r.code != 2 || !strings.Contains(r.stderr, out+" exists already, and init does not overwrite a file: give --force to replace it, or another --out") {
			t.Errorf("%q over an existing file: exit %d, %q", args, r.code, r.stderr)
		}
		if r := idemspec(t, append(args, "--out", out, "--force")...); r.code != 0 {
			t.Errorf("%q --force: exit %d\n%s", args, r.code, r.stderr)
		}
		if b, _ := os.ReadFile(out); !strings.HasPrefix(string(b), "# ") {
			t.Errorf("%q --force did not replace the file: %q", args, b)
		}
	}
}

// A draft whose base_url is remote gets its TODOs and errors listed
// before the refusal: they are what its author reads first.
func TestValidateListsFindingsOfARemoteFile(t *testing.T) {
	file := writeFile(t, "remote.yaml", `# TODO: base_url: point it at a test deployment
base_url: https://api.example.com
create: {path: /r, body: '{"m":"{{.Marker}}","v":{{.Variant}}}', id_field: id}
oracle: {list: {path: '/r?m={{.Marker}}'}}
`)
	v := idemspec(t, "validate", file)
	if v.code != 2 || !strings.Contains(v.stderr, "idemspec: warning: "+file+":1: TODO: base_url: point it at a test deployment\n") ||
		!strings.Contains(v.stderr, "refusing to test https://api.example.com") {
		t.Errorf("exit %d, want 2 with the TODO and the refusal\n%s", v.code, v.stderr)
	}
}
