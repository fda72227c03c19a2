package main_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/reports"
)

// The run's lifecycle holds for every way into client mode from the
// command's first instant: a signal while the target starts (--target)
// or while the MCP server is connected (--mcp --target), or --timeout
// running out then, stops what was started (its process group, the
// sleep it started included), writes the reports saying so, and exits
// 2, within seconds. Before, the
// handler was installed only once the checks began: the signal killed
// idemspec at once and left the target running, with no report.
func TestClientSignalDuringStartStopsTheTarget(t *testing.T) {
	t.Parallel()
	// A process that never answers its health path, writing its
	// shell's pid and its sleep's to pids.
	neverHealthy := func(pids string) string {
		return writeFile(t, "never-healthy.yaml", fmt.Sprintf(`name: never-healthy
base_url: http://127.0.0.1:{{.Port}}
create: {path: /resources, body: '{"marker":"{{.Marker}}","amount":{{.Variant}}}', id_field: id}
oracle: {list: {path: '/resources?marker={{.Marker}}', items: items}}
process:
  command: /bin/sh
  args: ["-c", "echo $$ >> %[1]s; sleep 6041 & echo $! >> %[1]s; wait"]
  health: {path: /healthz, timeout: 60s}
`, pids))
	}
	for _, c := range []struct {
		name   string
		file   func(pids string) string
		args   []string
		signal os.Signal
		reason string
	}{
		{"target start, SIGINT", neverHealthy, []string{"--base-url-env", "API_URL"}, os.Interrupt, "interrupted by SIGINT while starting the target"},
		{"MCP connect, SIGTERM", func(pids string) string {
			// A server that never answers initialize.
			return writeFile(t, "never-initialized.yaml", fmt.Sprintf(`name: never-initialized
mcp:
  command: sh -c 'echo $$ >> %[1]s; sleep 6041 & echo $! >> %[1]s; wait'
oracle: {tool: list_notes}
`, pids))
		}, []string{"--mcp", "--mcp-command-env", "AGENT_MCP_SERVER"}, syscall.SIGTERM, "interrupted by SIGTERM while connecting to the MCP server"},
		{"target start, --timeout", neverHealthy, []string{"--base-url-env", "API_URL", "--timeout", "4s"}, nil, "the run's time limit (--timeout 4s) ran out while starting the target"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			pids := filepath.Join(dir, "pids")
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			args := append([]string{"client", "--target", c.file(pids), "--cmd", "true", "--report-dir", dir}, c.args...)
			cmd, exited, out := startIdemspec(t, ctx, args...)
			started := awaitPids(t, exited, pids, 2, out)
			defer func() {
				for _, pid := range started {
					syscall.Kill(pid, syscall.SIGKILL) // only if the test failed: they are gone
				}
			}()
			since := time.Now()
			if c.signal != nil {
				if err := cmd.Process.Signal(c.signal); err != nil {
					t.Fatal(err)
				}
			}
			err := <-exited
			if ctx.Err() != nil {
				t.Fatalf("idemspec did not end:\n%s", out.String())
			}
			// The health wait and the connect are a minute long: ending
			// well before shows the signal ended them (a bound for a
			// loaded machine, not a stopwatch).
			if took := time.Since(since); took > 30*time.Second {
				t.Errorf("idemspec took %v to end after the signal or --timeout", took)
			}
			r := stoppedIncomplete(t, err, started, dir, c.reason, out.String())
			if len(r.Checks) == 0 || r.Checks[0].Verdict != check.ERROR {
				t.Errorf("checks %+v: want each an ERROR saying why", r.Checks)
			}
			if !strings.Contains(out.String(), c.reason) {
				t.Errorf("the terminal does not say %q:\n%s", c.reason, out.String())
			}
		})
	}
}

// `client --mcp --target` redacts the values of mcp.command's and
// mcp.env's ${NAME}s as the audit on the same file does: here the
// server prints both on its stderr and exits, which the error quotes.
func TestClientMCPTargetRedactsTheFilesSecrets(t *testing.T) {
	t.Parallel()
	envToken, commandToken := "sk_env_"+randomHex(t), "sk_cmd_"+randomHex(t)
	file := writeFile(t, "leaky.yaml", `name: leaky
mcp:
  command: sh -c 'echo "token=$LEAKY_TOKEN command=${IDEMSPEC_TEST_COMMAND_TOKEN}" >&2; exit 3'
  env: {LEAKY_TOKEN: "${IDEMSPEC_TEST_ENV_TOKEN}"}
oracle: {tool: list_notes}
`)
	env := []string{"IDEMSPEC_TEST_ENV_TOKEN=" + envToken, "IDEMSPEC_TEST_COMMAND_TOKEN=" + commandToken}
	for _, args := range [][]string{
		{"client", "--mcp", "--target", file, "--mcp-command-env", "AGENT_MCP_SERVER", "--cmd", "true"},
		{"mcp", "--target", file},
	} {
		t.Run(args[0], func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			r := idemspecEnv(t, env, append(args, "--report-dir", dir)...)
			if r.code != 2 || !strings.Contains(r.stdout+r.stderr, "token=[redacted] command=[redacted]") {
				t.Errorf("exit %d, want 2 quoting the server's stderr redacted:\n%s%s", r.code, r.stdout, r.stderr)
			}
			notIn(t, dir, r, []string{"report.json", "junit.xml", "report.md", "report.html"}, envToken, commandToken)
		})
	}
}

// The bearer token an unmodified program sends through the interposer
// is a secret of the run, as in contract mode: the program prints it,
// the API logs it (to target.log), and neither the terminal nor any file
// of the report directory holds it. report.json and report.html quoted
// the program's stderr in clear, and target.log the API's lines.
func TestClientTargetRedactsTheProgramsToken(t *testing.T) {
	long(t)
	t.Parallel()
	token := "sk_live_" + randomHex(t)
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	_, file, _, _ := runtime.Caller(0)
	agent := filepath.Join(filepath.Dir(file), "..", "..", "examples", "clients", "python-agent", "agent.py")
	// It reads its token from a file: idemspec sees it only on the wire.
	program := fmt.Sprintf(`T=$(cat %s); echo "agent: Authorization: Bearer $T" >&2; API_TOKEN=$T exec %s %s`, tokenFile, python(), agent)
	dir := t.TempDir()
	r := idemspec(t, "client", "--target", loggingAPI(t), "--base-url-env", "API_URL", "--label-filter", "C1",
		"--slack", pythonSlack.String(), "--report-dir", dir, "--cmd", program)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	files := notIn(t, dir, r, []string{"report.json", "junit.xml", "report.md", "report.html", "ginkgo.log", "target.log"}, token)
	if j := files["report.json"]; !strings.Contains(j, "agent: Authorization: [redacted]") && !strings.Contains(j, "agent: Authorization: Bearer [redacted]") {
		t.Error("report.json does not quote the program's stderr with the token redacted: did the excerpt go?")
	}
	if !strings.Contains(files["target.log"], "POST /resources Authorization: [redacted]") {
		t.Errorf("target.log does not show the API's line with the token redacted:\n%s", files["target.log"])
	}
}

// loggingAPI is a target file for a small API, run as a managed process,
// that logs each request's Authorization to its stdout (target.log), as
// many servers' access logs do; a create is deduplicated by its key.
func loggingAPI(t *testing.T) string {
	t.Helper()
	server := writeFile(t, "server.py", `import http.server, json, sys, uuid
items = []
class API(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass
    def answer(self, code, body):
        b = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)
    def do_GET(self):
        print("GET", self.path.split("?")[0], "Authorization:", self.headers.get("Authorization"), flush=True)
        if self.path.startswith("/idempotency-keys/"):
            return self.answer(404, {})
        marker = self.path.partition("marker=")[2]
        self.answer(200, {"items": [i for i in items if i["marker"] == marker]})
    def do_POST(self):
        print("POST", self.path, "Authorization:", self.headers.get("Authorization"), flush=True)
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        key = self.headers.get("Idempotency-Key")
        for i in items:
            if key and i["key"] == key:
                return self.answer(201, i)
        i = {"id": "res_" + uuid.uuid4().hex, "marker": str(body.get("marker", "")), "key": key}
        items.append(i)
        self.answer(201, i)
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), API).serve_forever()
`)
	return writeFile(t, "logging-api.yaml", fmt.Sprintf(`name: logging-api
base_url: http://127.0.0.1:{{.Port}}
create: {path: /resources, body: '{"marker":"{{.Marker}}","amount":{{.Variant}}}', id_field: id}
oracle: {list: {path: '/resources?marker={{.Marker}}', items: items}}
process:
  command: %s
  args: [%s, "{{.Port}}"]
  health: {path: /healthz, timeout: 30s}
`, python(), server))
}

// The README's example of the agent you ship, run from the repository
// root as written: the program's relative path names it in every trial,
// though each trial runs in a directory of its own.
func TestReadmeTargetExampleFromTheRoot(t *testing.T) {
	long(t)
	t.Parallel()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "client", "--target", "examples/targets/process-reference.yaml", "--base-url-env", "API_URL",
		"--cmd", "python3 examples/clients/python-agent/agent.py", "--label-filter", "C1 || C6", "--slack", pythonSlack.String(), "--report-dir", dir)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	r, err := reports.ReadJSON(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range r.Checks {
		if (c.ID == "C1" || c.ID == "C6") && c.Verdict != check.PASS {
			t.Errorf("%s: %s %s", c.ID, c.Verdict, c.Reason)
		}
	}
}

// A program that ends before sending any request: the terminal shows
// its exit status and how its stderr ended, not only the checks'
// "no request came" (the stderr was only in report.md).
func TestProgramThatSendsNothingIsShown(t *testing.T) {
	t.Parallel()
	program := `echo "starting"; echo "agent: API_KEY is not set" >&2; exit 4`
	for _, c := range []struct {
		name string
		args []string
	}{
		{"contract", nil},
		{"target", []string{"--target", processReference(), "--base-url-env", "API_URL"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := client(t, append([]string{"--label-filter", "C1", "--cmd", program}, c.args...)...)
			if r.code != 2 {
				t.Errorf("exit %d, want 2 (nothing to judge)", r.code)
			}
			for _, want := range []string{"the program ended before sending any request", "exited with status 4", "  agent: API_KEY is not set"} {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("the terminal does not say %q:\n%s", want, r.stdout)
				}
			}
		})
	}
	// A program that sends its create is not said to have sent nothing.
	r := client(t, "--label-filter", "C1", "--cmd", binary+" agent")
	if r.code != 0 || strings.Contains(r.stdout+r.stderr, "before sending any request") {
		t.Errorf("exit %d, want 0 and no word of a program that sent nothing:\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// notIn fails the test for each secret found in the output streams or
// in the files of dir named (each must exist); it returns what it read.
func notIn(t *testing.T, dir string, r result, files []string, secrets ...string) map[string]string {
	t.Helper()
	read := map[string]string{"stdout": r.stdout, "stderr": r.stderr}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Errorf("%s was not written: %v", f, err)
		}
		read[f] = string(b)
	}
	for name, content := range read {
		for _, secret := range secrets {
			if strings.Contains(content, secret) {
				t.Errorf("%s holds the secret %q", name, secret)
			}
		}
	}
	return read
}
