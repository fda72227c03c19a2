package main_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/fakes/mcpserver"
	"github.com/idemspec/idemspec/fakes/mutant"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/reports"
	"github.com/idemspec/idemspec/scenarios/mcptools"
	"github.com/idemspec/idemspec/targets/mcp"
)

// TestMCPAuditOfTheReference is the promise end to end:
// `idemspec mcp --cmd "idemspec serve --mcp"` gives exactly the designed
// PASS and WARN verdicts, exit 0, and the four reports with the per-tool
// table; a mutant exits 1 with its check failed on its tool.
func TestMCPAuditOfTheReference(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		mutant string
		code   int
	}{{mcpserver.Reference, 0}, {"keyed-races", 1}} {
		t.Run(c.mutant, func(t *testing.T) {
			if c.code != 0 {
				// Its M9 search on create_note takes half a minute (each
				// call waits out the mutant's race window); the MCP
				// matrices catch it in the fast tier too.
				long(t)
			}
			t.Parallel()
			dir := t.TempDir()
			state := filepath.Join(dir, "state.json")
			r := idemspec(t, "mcp", "--cmd", binary+" serve --mcp --mutant "+c.mutant+" --state "+state, "--report-dir", dir, "--seed", "42")
			if r.code != c.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, c.code, r.stdout, r.stderr)
			}
			rep := designedVerdicts(t, dir, c.mutant)
			if len(rep.Tools) != 5 {
				t.Errorf("the per-tool table has %d rows, want 5", len(rep.Tools))
			}
			md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
			html, _ := os.ReadFile(filepath.Join(dir, "report.html"))
			for _, want := range []string{"## Tools", "| `append_log` |", "not retry-safe"} {
				if !strings.Contains(string(md), want) {
					t.Errorf("report.md lacks %q", want)
				}
			}
			if !strings.Contains(string(html), `id="tools"`) {
				t.Error("report.html has no per-tool table")
			}
			// The report starts with the tools, before the checks' table.
			if i, j := strings.Index(string(md), "## Tools"), strings.Index(string(md), "## Checks"); i < 0 || i > j {
				t.Errorf("report.md puts its tools at %d, after its checks at %d", i, j)
			}
			if i, j := strings.Index(string(html), `id="tools"`), strings.Index(string(html), `id="summary"`); i > j {
				t.Errorf("report.html puts its tools at %d, after its summary at %d", i, j)
			}
			// The seed is the report's, and M9's notes say how to replay it.
			if rep.Run.Seed != 42 || !strings.Contains(r.stdout, "seed 42") {
				t.Errorf("the report's seed %d, want 42 (stdout %q)", rep.Run.Seed, r.stdout)
			}
			m9 := mcpCheck(t, rep, "M9", "put_note")
			if notes := strings.Join(m9.Evidence.Notes, "\n"); !strings.Contains(notes, "idemspec mcp --cmd ") || !strings.Contains(notes, "--seed 42") {
				t.Errorf("M9's notes give no replay line with the seed:\n%s", notes)
			}
			if _, err := os.Stat(filepath.Join(dir, "junit.xml")); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestMCPAuditOverHTTP: a target file with mcp: url: and process: runs
// `idemspec serve --mcp --addr` as a managed process behind the lanes;
// the reference gets the designed verdicts, a mutant fails its checks.
func TestMCPAuditOverHTTP(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		mutant string
		code   int
	}{{mcpserver.Reference, 0}, {"idempotent-appends", 1}} {
		t.Run(c.mutant, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "reports", "not-made-yet") // the audit makes it: the process logs there
			file := filepath.Join(filepath.Dir(filepath.Dir(dir)), "mcp.yaml")
			os.WriteFile(file, []byte(`name: notes over HTTP
mcp:
  url: http://127.0.0.1:{{.Port}}/mcp
process:
  command: "{{.Idemspec}}"
  args: [serve, --mcp, --addr, "127.0.0.1:{{.Port}}", --mutant, `+c.mutant+`, --state, "{{.ReportDir}}/state.json"]
`), 0o644)
			r := idemspec(t, "mcp", "--target", file, "--report-dir", dir)
			if r.code != c.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, c.code, r.stdout, r.stderr)
			}
			rep := designedVerdicts(t, dir, c.mutant)
			if !strings.HasPrefix(rep.Target.BaseURL, "http://127.0.0.1:") {
				t.Errorf("the report names the server %q, want its URL", rep.Target.BaseURL)
			}
		})
	}
}

// TestMCPBadInput: errors name the flag or the file and field.
func TestMCPBadInput(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("name: x\nmcp:\n  comand: foo\n"), 0o644)
	stdioProcess := filepath.Join(t.TempDir(), "stdio-process.yaml")
	os.WriteFile(stdioProcess, []byte("mcp: {command: foo}\nprocess: {command: foo}\n"), 0o644)
	crashAt := filepath.Join(t.TempDir(), "crash-at.yaml")
	os.WriteFile(crashAt, []byte("mcp: {url: \"http://127.0.0.1:{{.Port}}/mcp\"}\nprocess:\n  command: foo\n  crash_at: 'work key=\"{{.Key}}\"'\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp"}, "give --cmd, --url or --target"},
		{[]string{"mcp", "--target", bad}, "line 3: field comand not found"},
		{[]string{"mcp", "--target", stdioProcess}, "a stdio server (mcp: command:) is run by idemspec itself"},
		{[]string{"mcp", "--target", crashAt, "--dry-run"}, "crash-at.yaml:4: process.crash_at: an MCP server is crashed a delay after the call was delivered"},
		{[]string{"mcp", "--cmd", binary + " serve --mcp", "--oracle", "nope", "--dry-run"}, `oracle: tool: the server has no tool "nope"`},
		{[]string{"mcp", "--url", "http://mcp.example.com/mcp", "--dry-run"}, "mcp.example.com is not a loopback address"},
		{[]string{"mcp", "--url", "ftp://127.0.0.1/", "--dry-run"}, "mcp.url: \"ftp://127.0.0.1/\" is not an http:// or https:// URL"},
	} {
		// A report directory of the test's own: a server that fails to
		// start still leaves its target.log, never in the checkout.
		r := idemspec(t, append(c.args, "--report-dir", t.TempDir())...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Contains(r.stderr, "goroutine") {
			t.Errorf("idemspec %v: exit %d, stderr %q; want exit 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// design is what the audit must find, from the registries alone: the
// reference's entry, the checks the audit's registry says concern each
// tool of the reference as `idemspec serve --mcp` declares them (what it
// must pass, but for its findings), and each check's level.
func design(t *testing.T) mutant.Design {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	srv := &mcp.Stdio{Command: binary + " serve --mcp --state " + filepath.Join(t.TempDir(), "state.json"), Grace: time.Second}
	defer srv.Close()
	session, err := srv.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := session.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	audited, _, err := mcptools.Prepare(tools, mcptools.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	return mcpserver.Design(mcptools.Concerning(audited), mcptools.Levels())
}

// designedVerdicts reads the audit's report.json in dir and holds its
// verdicts to what the mutant named must get.
func designedVerdicts(t *testing.T, dir, name string) reports.Report {
	t.Helper()
	rep, err := reports.ReadJSON(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[mutant.Catch]check.Status{}
	for _, ch := range rep.Checks {
		got[mutant.Catch{Check: ch.ID, On: ch.Subject}] = ch.Verdict
	}
	m, err := mcpserver.LookupMutant(name)
	if err != nil {
		t.Fatal(err)
	}
	for _, problem := range design(t).Mismatches(m, got) {
		t.Error(problem)
	}
	return rep
}
