package main_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The document describing the reference server's own API drafts a file
// with no TODO that validates, and that passes against `idemspec serve`.
func TestInitFromOpenAPIRunsAgainstTheServerItDescribes(t *testing.T) {
	port := freePort(t)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	file := filepath.Join(t.TempDir(), "reference.yaml")
	r := idemspec(t, "init", "--openapi", "../../targets/openapi/testdata/reference.yaml", "--url", base, "--out", file)
	if r.code != 0 || !strings.Contains(r.stdout, "(POST /resources)\n") {
		t.Fatalf("init: exit %d, want 0 and no TODO\n%s%s", r.code, r.stdout, r.stderr)
	}
	if v := idemspec(t, "validate", file); v.code != 0 || v.stderr != "" {
		t.Fatalf("validate: exit %d, want 0 with no warning\n%s%s", v.code, v.stdout, v.stderr)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	serve := exec.CommandContext(ctx, binary, "serve", "--addr", fmt.Sprintf("127.0.0.1:%d", port), "--db", filepath.Join(t.TempDir(), "db"))
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { serve.Process.Signal(os.Interrupt); serve.Wait() }()
	run := run(t, "--target", file, "--label-filter", "S1 || S2 || S3 || S4", "--wait", "30s")
	if run.code != 0 {
		t.Fatalf("run: exit %d\n%s%s", run.code, run.stdout, run.stderr)
	}
	for _, id := range []string{"S1", "S2", "S3", "S4"} {
		if !strings.Contains(run.stdout, "PASS  "+id) {
			t.Errorf("%s did not pass:\n%s", id, run.stdout)
		}
	}
}

func TestInitFromOpenAPIWritesOneFilePerOperation(t *testing.T) {
	doc := "../../targets/openapi/testdata/shop-3.1.yaml"
	dir := filepath.Join(t.TempDir(), "targets")
	r := idemspec(t, "init", "--openapi", doc, "--all", "--out", dir)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, op := range []string{"createOrder", "refundOrder", "createPayment", "createWebhook"} {
		if _, err := os.Stat(filepath.Join(dir, op+".yaml")); err != nil {
			t.Errorf("--all: %v", err)
		}
	}
	if !strings.Contains(r.stdout, "createWebhook.yaml (POST /webhooks); 7 TODOs") {
		t.Errorf("no TODO count in:\n%s", r.stdout)
	}
	// validate names the field a TODO leaves missing, with its line.
	v := idemspec(t, "validate", filepath.Join(dir, "createPayment.yaml"))
	if v.code != 2 || !strings.Contains(v.stderr, "createPayment.yaml:") || !strings.Contains(v.stderr, ": oracle: missing required field") {
		t.Errorf("validate: exit %d, want 2 naming oracle\n%s", v.code, v.stderr)
	}
	// A file whose only TODOs are warnings validates, and lists them.
	v = idemspecEnv(t, []string{"API_TOKEN=a-token-long-enough-to-redact"}, "validate", "--allow-remote", filepath.Join(dir, "createOrder.yaml"))
	if v.code != 0 || strings.Count(v.stderr, "warning: ") != 2 || !strings.Contains(v.stderr, "createOrder.yaml:7: TODO: base_url:") {
		t.Errorf("validate: exit %d, want 0 with the two TODOs as warnings\n%s", v.code, v.stderr)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--all"}, "4 operations chosen: give --out DIR"},
		{[]string{"--out", dir}, "file exists"}, // never overwrites
		{[]string{"--operation", "nope"}, `no operation "nope"`},
		{[]string{"--path", "/x"}, "--path picks nothing"},
	} {
		r := idemspec(t, append([]string{"init", "--openapi", doc}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("init %v: exit %d, want 2 with %q\n%s", c.args, r.code, c.want, r.stderr)
		}
	}
	if r := idemspec(t, "init", "--all"); r.code != 2 || !strings.Contains(r.stderr, "--openapi") {
		t.Errorf("--all without --openapi: exit %d\n%s", r.code, r.stderr)
	}
}
