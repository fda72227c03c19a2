package main_test

import (
	"encoding/base64"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/reports"
)

// A secret is redacted in every form a server may echo it in: the Basic
// credentials Go builds from base_url's userinfo (base64 of user:secret),
// JSON-escaped (quotes, backslashes, HTML characters, non-ASCII as
// \uXXXX) and URL-encoded.
func TestDerivedSecretFormsNeverWritten(t *testing.T) {
	password := "pw-" + randomHex(t)
	odd := `odd"key\with-<&>-é€-` + randomHex(t)
	t.Setenv("IDEMSPEC_PLANTED_PASSWORD", password)
	t.Setenv("IDEMSPEC_PLANTED_ODD", odd)
	addr := echoingReference(t)
	target := writeFile(t, "derived.yaml", fmt.Sprintf(`
name: derived
base_url: http://idemspec:${IDEMSPEC_PLANTED_PASSWORD}@%s
`+referenceAPI+`headers:
  X-Api-Key: ${IDEMSPEC_PLANTED_ODD}
`, addr))
	dir := t.TempDir()
	r := idemspec(t, "run", "--target", target, "--report-dir", dir, "--label-filter", "S1", "-v")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	basic := base64.StdEncoding.EncodeToString([]byte("idemspec:" + password))
	outputs := neverWritten(t, dir, r, password, basic, odd,
		`odd\"key\\with`, `\u00e9\u20ac`, "odd%22key%5Cwith")
	for _, want := range []string{`\"seen_authorization\":\"Basic [redacted]\"`, `\"seen_api_key\":\"[redacted]\"`, `\"seen_ascii\":\"[redacted]\"`, `key=[redacted]`} {
		if !strings.Contains(outputs["report.json"], want) {
			t.Errorf("report.json lacks %s: the echo never reached the report, so this test proved nothing", want)
		}
	}
}

// echoingReference serves the reference fake behind echoingServer on a
// loopback port until the test ends.
func echoingReference(t *testing.T) net.Addr {
	t.Helper()
	server, err := fakes.Open(fakes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Close() })
	return serveLoopback(t, &echoingServer{next: server.Handler()})
}

// A secret too short to redact without rewriting the report's own text
// is not redacted: loading warns, and the report stays whole.
func TestShortSecretWarnsAndLeavesTheReportWhole(t *testing.T) {
	t.Setenv("IDEMSPEC_SHORT", "e")
	_, _, file := countingTarget(t, "headers:\n  X-Team: ${IDEMSPEC_SHORT}\n")
	dir := t.TempDir()
	r := idemspec(t, "run", "--target", file, "--report-dir", dir, "--label-filter", "S1")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "headers.X-Team: a secret of 1 bytes is too short to redact") {
		t.Errorf("no warning about the short secret:\n%s", r.stderr)
	}
	if v := idemspec(t, "validate", file); !strings.Contains(v.stderr, "a secret of 1 bytes is too short") {
		t.Errorf("validate does not warn as run does:\n%s", v.stderr)
	}
	rep, err := reports.ReadJSON(filepath.Join(dir, "report.json"))
	if err != nil || rep.Schema != reports.Schema || rep.Summary.Pass != 1 || checkOf(rep, "S1").Verdict != "PASS" {
		t.Errorf("the report is not whole: %v, schema %q, summary %+v", err, rep.Schema, rep.Summary)
	}
	if re := idemspec(t, "report", "--out", t.TempDir(), filepath.Join(dir, "report.json")); re.code != 0 {
		t.Errorf("idemspec report refuses the file: %s", re.stderr)
	}
}

// The managed process's own output (here it prints the token it was
// given) is redacted in target.log too, and a symlink planted at a log's
// path is replaced, not followed.
func TestTargetLogIsRedacted(t *testing.T) {
	token := "tok-" + randomHex(t)
	t.Setenv("IDEMSPEC_PLANTED_TOKEN", token)
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"target.log", "ginkgo.log"} {
		if err := os.Symlink(victim, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	target := writeFile(t, "process.yaml", `
base_url: http://127.0.0.1:{{.Port}}
`+referenceAPI+`process:
  command: sh
  args: ["-c", 'echo "starting with token $TOKEN"; exec "$0" serve --addr 127.0.0.1:{{.Port}} --db "$1"', "{{.Idemspec}}", "{{.ReportDir}}/target.db"]
  env: {TOKEN: "${IDEMSPEC_PLANTED_TOKEN}"}
  health: {path: /healthz}
`)
	r := idemspec(t, "run", "--target", target, "--report-dir", dir, "--label-filter", "S1")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	outputs := neverWritten(t, dir, r, token)
	if !strings.Contains(outputs["target.log"], "starting with token [redacted]") {
		t.Errorf("target.log lacks the redacted line:\n%s", outputs["target.log"])
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep me" {
		t.Errorf("a log was written through the planted symlink: %q", b)
	}
}

func checkOf(r reports.Report, id string) reports.CheckResult {
	for _, c := range r.Checks {
		if c.ID == id {
			return c
		}
	}
	return reports.CheckResult{}
}
