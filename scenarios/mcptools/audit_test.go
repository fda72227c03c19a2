package mcptools_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/fakes/mcpserver"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/reports"
	"github.com/idemspec/idemspec/scenarios/mcptools"
	"github.com/idemspec/idemspec/targets/mcp"
)

// hostileFile is a target file that runs the test binary as a hostile
// server over stdio, with extra text after the command.
func hostileFile(t *testing.T, name, extra string, env map[string]string) string {
	t.Helper()
	cmd, selfEnv := mcpserver.SelfCommand(name, "")
	var b strings.Builder
	b.WriteString("name: hostile\nmcp:\n  command: " + quoteYAML(cmd+extra) + "\n  env:\n")
	for _, kv := range selfEnv {
		k, v, _ := strings.Cut(kv, "=")
		b.WriteString("    " + k + ": " + quoteYAML(v) + "\n")
	}
	for k, v := range env {
		b.WriteString("    " + k + ": " + quoteYAML(v) + "\n")
	}
	file := filepath.Join(t.TempDir(), "hostile.yaml")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

func quoteYAML(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// auditFile loads file and audits it as idemspec mcp --target does.
func auditFile(t *testing.T, file string, s mcptools.Settings) (*reports.Report, error) {
	t.Helper()
	f, err := mcp.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	return mcptools.Audit(context.Background(), mcptools.Options{File: f, Source: file, Settings: s, Timeout: 2 * time.Minute, Dir: t.TempDir()}, io.Discard)
}

// TestSilentServersGetBoundedErrors: a server that never answers
// initialize, or never tools/list, is given StartTimeout for each (10 s:
// a server that does answer initialize must do it within the bound even
// on a machine running two test suites), then
// the audit ends with a report whose every check is ERROR saying which
// answer never came, not after the audit's whole --timeout.
func TestSilentServersGetBoundedErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ server, want string }{
		{mcpserver.HostileSilent, "did not answer initialize within 10s"},
		{mcpserver.HostileNoList, "did not answer tools/list within 10s"},
	} {
		t.Run(c.server, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			r, err := auditFile(t, hostileFile(t, c.server, "", nil), mcptools.Settings{StartTimeout: 10 * time.Second})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("the audit's error %v, want %q", err, c.want)
			}
			// The audit's own timeout is 2m (auditFile): half of it
			// separates a bounded start from a wait for the whole audit,
			// whatever the machine's load.
			if d := time.Since(start); d >= time.Minute {
				t.Errorf("the audit took %s with a start timeout of 10s: it waited on toward its own timeout", d)
			}
			if r == nil {
				t.Fatal("no report")
			}
			if len(r.Checks) != len(mcptools.Checks()) || r.ExitCode() != 2 {
				t.Errorf("%d checks, exit %d; want one ERROR per check of the audit, exit 2", len(r.Checks), r.ExitCode())
			}
			for _, ch := range r.Checks {
				if ch.Verdict != check.ERROR || !strings.Contains(ch.Reason, c.want) {
					t.Errorf("%s: %s %q, want ERROR saying %q", ch.ID, ch.Verdict, ch.Reason, c.want)
				}
			}
		})
	}
}

// TestDeepSchemas: a tool whose input schema nests 400 objects deep is
// audited like any other (its top-level properties read, the rest left
// alone). At 1000 objects deep, tools/list is an answer deeper than the
// SDK reads (1000 levels): the audit ends at once with every check
// ERROR saying so, and a report that every writer renders, not an abort
// with none.
func TestDeepSchemas(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		depth   string
		errored bool
	}{{"400", false}, {"1000", true}} {
		t.Run(c.depth, func(t *testing.T) {
			t.Parallel()
			r, err := auditFile(t, hostileFile(t, mcpserver.HostileDeepSchema, "", map[string]string{mcpserver.DepthVar: c.depth}), mcptools.Settings{})
			if c.errored != (err != nil) || (err != nil && !strings.Contains(err.Error(), "tools/list")) {
				t.Errorf("the audit's error %v, want one naming tools/list: %v", err, c.errored)
			}
			if r == nil {
				t.Fatal("no report")
			}
			for _, ch := range r.Checks {
				switch {
				case c.errored && (ch.Verdict != check.ERROR || !strings.Contains(ch.Reason, "nesting depth")):
					t.Errorf("%s: %s %q, want ERROR naming the depth", ch.ID, ch.Verdict, ch.Reason)
				case !c.errored && ch.Verdict != check.PASS:
					t.Errorf("%s %s: %s %q, want PASS", ch.ID, ch.Subject, ch.Verdict, ch.Reason)
				}
			}
			if _, err := reports.WriteAll(t.TempDir(), *r); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestSecretsAreRedacted: the values of ${NAME} in mcp.command and
// mcp.env are secrets; a server that echoes them back (in every answer)
// has them replaced in every report file and in the plan.
func TestSecretsAreRedacted(t *testing.T) {
	const token, other = "tok-3f9a1c27d5e84b60", "env-9d2b7c41e0a3f518"
	t.Setenv("IDEMSPEC_TEST_TOKEN", token)
	t.Setenv("IDEMSPEC_TEST_OTHER", other)
	file := hostileFile(t, mcpserver.HostileEcho, " --token ${IDEMSPEC_TEST_TOKEN}",
		map[string]string{mcpserver.EchoVar: "${IDEMSPEC_TEST_OTHER}"})
	f, err := mcp.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	var plan strings.Builder
	r, err := mcptools.Audit(context.Background(), mcptools.Options{File: f, Source: file, Timeout: time.Minute, Dir: t.TempDir()}, &plan)
	if err != nil {
		t.Fatal(err)
	}
	if r.Checks[0].Verdict == check.ERROR {
		t.Fatalf("the echo server was not audited: %+v", r.Checks)
	}
	dir := t.TempDir()
	paths, err := reports.WriteAll(dir, *r)
	if err != nil {
		t.Fatal(err)
	}
	redacted := 0
	for _, p := range paths {
		b, _ := os.ReadFile(p)
		for _, secret := range []string{token, other} {
			if strings.Contains(string(b), secret) {
				t.Errorf("%s holds the secret %s", filepath.Base(p), secret)
			}
		}
		redacted += strings.Count(string(b), "[redacted]")
	}
	if redacted == 0 {
		t.Error("no report says [redacted]: the echo never reached them, and the test proves nothing")
	}
	if strings.Contains(plan.String(), token) || strings.Contains(plan.String(), other) {
		t.Errorf("the plan holds a secret:\n%s", plan.String())
	}
}
