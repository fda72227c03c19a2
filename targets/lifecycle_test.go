package targets_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/idemspec/idemspec/internal/proc/proctest"
	"github.com/idemspec/idemspec/internal/testenv"
	"github.com/idemspec/idemspec/targets"
)

// sections are the part of a target file every test here shares,
// after its base_url.
const sections = `
create:
  path: /resources
  body: '{"marker":"{{.Marker}}","amount":{{.Variant}}}'
  id_field: id
oracle:
  list:
    path: /resources?marker={{.Marker}}
`

func TestParseProcess(t *testing.T) {
	unsetenv(t, "IDEMSPEC_TEST_MUTANT")
	t.Setenv("IDEMSPEC_TEST_DELAY", "300.0000ms")
	tg, err := targets.Parse("p.yaml", file(`
base_url: http://127.0.0.1:{{.Port}}`+sections+`
process:
  command: "{{.Idemspec}}"
  args: [serve, "--addr=127.0.0.1:{{.Port}}", "--mutant=${IDEMSPEC_TEST_MUTANT:-reference}", "--delay=${IDEMSPEC_TEST_DELAY:-1s}"]
  env: {DB: "{{.ReportDir}}/x.db"}
  health: {path: /healthz, timeout: 3s}
  stop_timeout: 2s
  crash_window: 20ms-80ms
`))
	if err != nil {
		t.Fatal(err)
	}
	p, ok := tg.Lifecycle.(*targets.Process)
	if !ok {
		t.Fatalf("Lifecycle is %T, want *targets.Process", tg.Lifecycle)
	}
	if p.Port == 0 || tg.BaseURL.Port() != strconv.Itoa(p.Port) {
		t.Errorf("base_url %s, picked port %d: {{.Port}} must be the same port", tg.BaseURL, p.Port)
	}
	wantArgs := []string{"serve", "--addr=127.0.0.1:{{.Port}}", "--mutant=reference", "--delay=300.0000ms"}
	if fmt.Sprint(p.Args) != fmt.Sprint(wantArgs) {
		t.Errorf("Args %q, want %q (${ENV} expanded now, the default when unset; templates kept for start)", p.Args, wantArgs)
	}
	if p.Health != (targets.Health{Path: "/healthz", Timeout: 3 * time.Second}) || p.StopTimeout != 2*time.Second {
		t.Errorf("Health %+v, StopTimeout %v", p.Health, p.StopTimeout)
	}
	if tg.CrashWindow != (targets.Window{Min: 20 * time.Millisecond, Max: 80 * time.Millisecond}) {
		t.Errorf("CrashWindow %v", tg.CrashWindow)
	}
	if tg.Redact("x300.0000ms") != "x[redacted]" || tg.Redact("reference") != "reference" {
		t.Errorf("an ${ENV} value is a secret, a default is not: %q %q", tg.Redact("x300.0000ms"), tg.Redact("reference"))
	}
	for _, c := range []struct{ what, why string }{
		{tg.CannotRestart(), "restart"}, {tg.CannotCrash(), "crash"},
	} {
		if c.what != "" {
			t.Errorf("a process target can %s, yet: %s", c.why, c.what)
		}
	}
}

func TestParseRestartHooks(t *testing.T) {
	t.Setenv("IDEMSPEC_TEST_ADMIN", "adm1n")
	tg, err := targets.Parse("h.yaml", file(`
base_url: http://127.0.0.1:8080`+sections+`
restart:
  http:
    url: /admin/restart
    headers: {Authorization: "Bearer ${IDEMSPEC_TEST_ADMIN}"}
`))
	if err != nil {
		t.Fatal(err)
	}
	h, ok := tg.Lifecycle.(*targets.RestartHook)
	if !ok {
		t.Fatalf("Lifecycle is %T, want *targets.RestartHook", tg.Lifecycle)
	}
	if h.HTTP == nil || h.HTTP.Method != http.MethodPost || h.HTTP.Header.Get("Authorization") != "Bearer adm1n" {
		t.Errorf("HTTP hook %+v", h.HTTP)
	}
	if h.Timeout != targets.DefaultHookTimeout || h.Health.Timeout != targets.DefaultHealthTimeout || h.Health.Path != "" {
		t.Errorf("defaults: timeout %v, health %+v", h.Timeout, h.Health)
	}
	if tg.CannotRestart() != "" || !strings.Contains(tg.CannotCrash(), "hook") {
		t.Errorf("a hook restarts (%q) but cannot crash (%q)", tg.CannotRestart(), tg.CannotCrash())
	}

	plain, err := targets.Parse("n.yaml", file("base_url: http://127.0.0.1:8080"+sections))
	if err != nil {
		t.Fatal(err)
	}
	if plain.CannotRestart() == "" || plain.CannotCrash() == "" {
		t.Error("a target idemspec only calls can neither restart nor crash")
	}
}

func TestParseLifecycleErrors(t *testing.T) {
	unsetenv(t, "IDEMSPEC_TEST_UNSET")
	cases := []struct{ name, data, want string }{
		{"port without a process", "base_url: http://127.0.0.1:{{.Port}}" + sections,
			"t.yaml:1: base_url: {{.Port}} is only known for a target with a process: section"},
		{"process and restart", "base_url: http://127.0.0.1:1" + sections + "process:\n  command: x\nrestart:\n  command: y\n",
			"t.yaml:11: restart: a target has either process:"},
		{"process without command", "base_url: http://127.0.0.1:1" + sections + "process:\n  args: [a]\n",
			"t.yaml:10: process.command: missing required field"},
		{"unknown template variable", "base_url: http://127.0.0.1:1" + sections + "process:\n  command: x\n  args: [\"{{.Prot}}\"]\n",
			"process.args[0]: template: field:1:2: executing \"field\" at <.Prot>: can't evaluate field Prot"},
		{"unknown process field", "base_url: http://127.0.0.1:1" + sections + "process:\n  command: x\n  helth: {path: /}\n",
			"t.yaml:11: process.helth: unknown field (did you mean \"health\"?)"},
		{"bad crash window", "base_url: http://127.0.0.1:1" + sections + "process:\n  command: x\n  crash_window: 80ms-20ms\n",
			"process.crash_window: \"80ms-20ms\" is not a window such as 50ms-200ms"},
		{"a crash window past the cap", "base_url: http://127.0.0.1:1" + sections + "process:\n  command: x\n  crash_window: 0s-2562047h\n",
			"process.crash_window: \"0s-2562047h\" ends past 1m0s"},
		{"a crash point without the key", "base_url: http://127.0.0.1:1" + sections + "process:\n  command: x\n  crash_at: working\n",
			"process.crash_at: must hold {{.Key}}"},
		{"bad health timeout", "base_url: http://127.0.0.1:1" + sections + "process:\n  command: x\n  health: {timeout: soon}\n",
			"process.health.timeout: \"soon\" is not a positive duration"},
		{"a start-up past its cap", "base_url: http://127.0.0.1:1" + sections + "process:\n  command: x\n  health: {timeout: 10m1s}\n",
			"process.health.timeout: 10m1s is longer than 10m0s, the most idemspec waits for a start-up"},
		{"a restart hook's start-up past its cap", "base_url: http://127.0.0.1:1" + sections + "restart:\n  command: x\n  health: {timeout: 11m}\n",
			"restart.health.timeout: 11m0s is longer than 10m0s, the most idemspec waits for a start-up"},
		{"a stop past the cap of other waits", "base_url: http://127.0.0.1:1" + sections + "process:\n  command: x\n  stop_timeout: 2m\n",
			"process.stop_timeout: 2m0s is longer than 1m0s, the most idemspec waits for anything"},
		{"restart with neither hook", "base_url: http://127.0.0.1:1" + sections + "restart:\n  timeout: 5s\n",
			"t.yaml:9: restart: give exactly one of command: (a script) or http: (an admin endpoint)"},
		{"restart with both hooks", "base_url: http://127.0.0.1:1" + sections + "restart:\n  command: x\n  http: {url: /r}\n",
			"restart: give exactly one of"},
		{"unset variable in a process field", "base_url: http://127.0.0.1:1" + sections + "process:\n  command: ${IDEMSPEC_TEST_UNSET}\n",
			"t.yaml:10: process.command: environment variable \"IDEMSPEC_TEST_UNSET\" is not set"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := targets.Parse("t.yaml", file(c.data))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
}

// A start-up may take minutes (a JVM, a first npm ci): health.timeout
// takes up to targets.MaxStartup, beyond the minute every other wait is
// capped at (the parse holds it there: 2m and 10m read as given, 10m1s
// refused above), and a process that comes up slowly, here after 3 s,
// is waited for until it is up, not until the timeout.
func TestSlowStartUp(t *testing.T) {
	t.Parallel() // it waits on kills and sleeps, not on a core
	for _, timeout := range []string{"2m", "10m"} {
		tg, err := targets.Parse("p.yaml", file("base_url: http://127.0.0.1:1"+sections+"process:\n  command: x\n  health: {timeout: "+timeout+"}\n"))
		if err != nil {
			t.Fatalf("health.timeout %s: %v", timeout, err)
		}
		if got := tg.Lifecycle.(*targets.Process).Health.Timeout.String(); got != map[string]string{"2m": "2m0s", "10m": "10m0s"}[timeout] {
			t.Errorf("health.timeout %s read as %s", timeout, got)
		}
		tg.Close()
	}
	dir := t.TempDir()
	tg, err := targets.Parse("p.yaml", file(`
base_url: http://127.0.0.1:{{.Port}}`+sections+`
process:
  command: sh
  args: ["-c", "sleep 3; echo up > `+filepath.Join(dir, "up")+`; while :; do sleep 1; done"]
  health: {timeout: 2m}
  stop_timeout: 300ms
`))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	// The health check's port answers once the process says it is up.
	ln, err := net.Listen("tcp", tg.Upstream())
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	go func() {
		for range 600 {
			if _, err := os.Stat(filepath.Join(dir, "up")); err == nil {
				if l, err := net.Listen("tcp", tg.Upstream()); err == nil {
					t.Cleanup(func() { l.Close() })
				}
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	start := time.Now()
	if err := tg.Start(context.Background(), dir); err != nil {
		t.Fatalf("a process up after 3 s with health.timeout 2m: %v", err)
	}
	if took := time.Since(start); took < 3*time.Second {
		t.Errorf("Start returned after %v, before the process was up", took)
	}
}

// processTarget builds a process target from a shell script.
func processTarget(t *testing.T, script, health string) (*targets.Target, *targets.Process) {
	t.Helper()
	tg, err := targets.Parse("p.yaml", file(fmt.Sprintf(`
base_url: http://127.0.0.1:{{.Port}}`+sections+`
process:
  command: sh
  args: ["-c", %q]
  health: {%s timeout: 2s}
  stop_timeout: 300ms
`, script, health)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg, tg.Lifecycle.(*targets.Process)
}

// startServed starts a process target whose health check (a TCP
// connection) the test answers itself, on the process's port.
func startServed(t *testing.T, tg *targets.Target, dir string) {
	t.Helper()
	ln, err := net.Listen("tcp", tg.Upstream())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	if err := tg.Start(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
}

// A process that never becomes healthy, or dies first, is not left
// behind, nor is anything it started.
func TestProcessStartFailureLeavesNothing(t *testing.T) {
	cases := []struct{ name, script, want string }{
		{"exits at once", "echo boom >&2; exit 3", "the process exited before it was healthy"},
		{"never listens", "sleep 30 & echo $! >child.pid; sleep 30", "not healthy within 2s"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			// A path, not a bare TCP probe: {{.Port}} was free at load
			// time, but a parallel test may bind it meanwhile, and a
			// stranger on the port must not pass for the process.
			tg, _ := processTarget(t, "cd "+dir+"; "+c.script, "path: /idemspec-never-served,")
			err := tg.Start(context.Background(), dir)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), filepath.Join(dir, targets.LogName)) {
				t.Fatalf("Start: %v; want %q and the log's path", err, c.want)
			}
			log, _ := os.ReadFile(filepath.Join(dir, targets.LogName))
			pids := started(string(log))
			if len(pids) != 1 {
				t.Fatalf("log names %d started pids:\n%s", len(pids), log)
			}
			if child := readInt(filepath.Join(dir, "child.pid")); child > 0 {
				pids = append(pids, child)
			}
			for _, pid := range pids {
				if !goneSoon(pid) {
					t.Errorf("pid %d still runs after the failed start", pid)
				}
			}
			if c.name == "exits at once" && !strings.Contains(string(log), "boom") {
				t.Errorf("the process's output is not in the log:\n%s", log)
			}
		})
	}
}

// Restart and Crash replace the process (a new pid each time, the old
// group gone), and Stop ends with nothing left, a SIGTERM-deaf process
// included.
func TestProcessRestartCrashStop(t *testing.T) {
	dir := t.TempDir()
	// The shell ignores SIGTERM and a child it started keeps the group
	// busy; the test serves the health check's port itself.
	tg, p := processTarget(t, "trap '' TERM; sleep 60 & while :; do sleep 1; done", "")
	startServed(t, tg, dir)
	steps := []struct {
		name string
		do   func(context.Context) error
	}{{"restart", p.Restart}, {"crash", p.Crash}}
	prev := p.Pid()
	for _, s := range steps {
		if err := s.do(context.Background()); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if now := p.Pid(); now == prev || now == 0 || !goneSoon(prev) {
			t.Errorf("%s: pid %d -> %d; the old group must be gone", s.name, prev, now)
		}
		prev = p.Pid()
	}
	if err := tg.Close(); err != nil {
		t.Fatal(err)
	}
	if !goneSoon(prev) {
		t.Errorf("after Stop, group %d still has processes", prev)
	}
	log, _ := os.ReadFile(filepath.Join(dir, targets.LogName))
	for _, want := range []string{"did not stop within 300ms of SIGTERM: SIGKILL", "stopped (SIGKILL)"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
}

func TestRestartCommandHook(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	dir := t.TempDir()
	cases := []struct{ name, command, timeout, want string }{
		{"runs and waits for health", "echo restarted >" + filepath.Join(dir, "ran"), "5s", ""},
		{"failing command", "echo 'no such unit' >&2; exit 5", "5s", `restart.command: exit status 5: "no such unit"`},
		{"overrunning command", proctest.Sleep(), "200ms", "restart.command: did not finish within 200ms"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tg, err := targets.Parse("h.yaml", file(fmt.Sprintf("base_url: %s%srestart:\n  command: %q\n  timeout: %s\n  health: {path: /healthz, timeout: 2s}\n", srv.URL, sections, c.command, c.timeout)))
			if err != nil {
				t.Fatal(err)
			}
			tg.Start(context.Background(), dir)
			start := time.Now()
			err = tg.Lifecycle.(targets.Restarter).Restart(context.Background())
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if _, err := os.Stat(filepath.Join(dir, "ran")); err != nil {
					t.Errorf("the command did not run: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Restart: %v, want %q", err, c.want)
			}
			if took := time.Since(start); !proctest.Stopped(took) {
				t.Errorf("took %v: the command was not stopped at its timeout", took)
			}
		})
	}
}

func TestRestartHTTPHook(t *testing.T) {
	var restarts atomic.Int32
	var down atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/admin/restart":
			if r.Header.Get("Authorization") != "Bearer adm1n" || r.Method != http.MethodPut {
				w.WriteHeader(http.StatusForbidden)
				return
			}
			restarts.Add(1)
			down.Store(true)
			time.AfterFunc(100*time.Millisecond, func() { down.Store(false) })
			w.WriteHeader(http.StatusAccepted)
		case "/healthz":
			if down.Load() {
				w.WriteHeader(http.StatusServiceUnavailable)
			}
		}
	}))
	defer srv.Close()
	t.Setenv("IDEMSPEC_TEST_ADMIN", "adm1n")
	for _, c := range []struct{ name, auth, want string }{
		{"accepted, then healthy", "Bearer ${IDEMSPEC_TEST_ADMIN}", ""},
		{"refused", "Bearer wrong", "restart.http: PUT answered 403"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tg, err := targets.Parse("h.yaml", file(fmt.Sprintf("base_url: %s%srestart:\n  http:\n    method: put\n    url: /admin/restart\n    headers: {Authorization: %q}\n  health: {path: /healthz, timeout: 2s}\n", srv.URL, sections, c.auth)))
			if err != nil {
				t.Fatal(err)
			}
			before := restarts.Load()
			err = tg.Lifecycle.(targets.Restarter).Restart(context.Background())
			if c.want == "" {
				if err != nil || restarts.Load() != before+1 || down.Load() {
					t.Errorf("Restart: %v, restarts %d -> %d, down %v", err, before, restarts.Load(), down.Load())
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Restart: %v, want %q", err, c.want)
			}
		})
	}
}

func started(log string) []int {
	var pids []int
	for _, line := range strings.Split(log, "\n") {
		if _, rest, ok := strings.Cut(line, ": started pid "); ok {
			pid, _ := strconv.Atoi(strings.Fields(rest)[0])
			pids = append(pids, pid)
		}
	}
	return pids
}

func readInt(path string) int {
	b, _ := os.ReadFile(path)
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

// running: the process exists and is not a zombie.
// goneSoon waits for a process and its group to be gone: a SIGKILL to a
// group is delivered at once but a busy kernel may take a moment to end a
// member the leader left behind. It returns as soon as they are.
func goneSoon(pid int) bool {
	deadline := time.Now().Add(testenv.WaitLimit)
	for running(pid) || groupAlive(pid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z")
}

// groupAlive: some live process is in process group pgid.
func groupAlive(pgid int) bool {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, s := range stats {
		b, err := os.ReadFile(s)
		if err != nil {
			continue
		}
		_, rest, _ := strings.Cut(string(b), ") ")
		f := strings.Fields(rest) // state ppid pgrp ...
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
			return true
		}
	}
	return false
}

// A managed process with process.crash_at is crashed where it says: the
// point for a key closes when the process writes that key's line (in
// pieces, after lines for other keys), not before, and a restart
// forgets the points armed for the process that is gone.
func TestProcessCrashPointIsItsLine(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "say")
	tg, err := targets.Parse("p.yaml", file(fmt.Sprintf(`
base_url: http://127.0.0.1:{{.Port}}`+sections+`
process:
  command: sh
  args: ["-c", "while :; do cat %s; done"]
  health: {timeout: 2s}
  stop_timeout: 300ms
  crash_at: 'work key="{{.Key}}"'
`, fifo)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	p := tg.Lifecycle.(*targets.Process)
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	startServed(t, tg, dir)
	say := func(s string) {
		t.Helper()
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	point := p.CrashPoint("k1")
	say(`work key="k2"` + "\n" + `work key="k`)
	select {
	case <-point:
		t.Fatal("the point for k1 closed on another key's line, or half a line")
	case <-time.After(200 * time.Millisecond):
	}
	say(`1"` + "\n")
	select {
	case <-point:
	case <-time.After(10 * time.Second):
		t.Fatal("the process wrote k1's line and its point did not close")
	}
	stale := p.CrashPoint("k3")
	if err := p.Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
	say(`work key="k3"` + "\n")
	select {
	case <-stale:
		t.Fatal("a point armed before the restart closed on the new process's line")
	case <-time.After(200 * time.Millisecond):
	}
}
