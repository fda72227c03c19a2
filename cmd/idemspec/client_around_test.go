package main_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/internal/testenv"
)

// A program that draws a new key per attempt must not PASS C1 because
// its retries went where the interposer does not judge them: straight
// to the API (an SDK's fallback host, an address read from /proc), or
// through the interposer on a path the file does not write as such
// (/x/../resources, which a server routes as /resources).
func TestRetriesAroundTheInterposerNeverPass(t *testing.T) {
	long(t)
	t.Parallel()
	requireTool(t, "python3", "python3")
	port := freePort(t)
	api := fmt.Sprintf("http://127.0.0.1:%d", port)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	serve := exec.CommandContext(ctx, binary, "serve", "--addr", fmt.Sprintf("127.0.0.1:%d", port), "--db", filepath.Join(t.TempDir(), "db"))
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { serve.Process.Signal(os.Interrupt); serve.Wait() }()
	testenv.WaitFor(t, "the reference server's health", func() bool {
		res, err := http.Get(api + "/healthz")
		if err == nil {
			res.Body.Close()
		}
		return err == nil && res.StatusCode == 200
	})
	file := filepath.Join(t.TempDir(), "outside.yaml")
	target := "name: reference-outside\nbase_url: " + api + "\ncreate:\n  path: /resources\n  body: '{\"marker\":\"{{.Marker}}\",\"amount\":{{.Variant}}}'\n  id_field: id\n" +
		"oracle:\n  list:\n    path: /resources?marker={{.Marker}}\n    items: items\nlookup:\n  path: /idempotency-keys/{{.Key}}\n"
	if err := os.WriteFile(file, []byte(target), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		mode string
		want check.Status
		says string
	}{
		{"around", check.ERROR, "the program reached the API another way than through idemspec's interposer"},
		{"dots", check.FAIL, ""},
	} {
		t.Run(c.mode, func(t *testing.T) {
			r := client(t, "--target", file, "--cmd", "env DIRECT_URL="+api+" "+unmodifiedAgent(c.mode), "--slack", pythonSlack.String(),
				"--base-url-env", "API_URL", "--label-filter", "C1")
			for _, v := range r.report.Checks {
				if v.ID != "C1" {
					continue
				}
				if v.Verdict != c.want || !strings.Contains(v.Reason, c.says) {
					t.Errorf("C1: %s %q, want %s saying %q\n%s", v.Verdict, v.Reason, c.want, c.says, strings.Join(v.Evidence.Notes, "\n"))
				}
				return
			}
			t.Errorf("no C1 in the report (exit %d)\n%s%s", r.code, r.stdout, r.stderr)
		})
	}
}
