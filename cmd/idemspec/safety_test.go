package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/internal/fakename"
	"github.com/idemspec/idemspec/internal/proc/proctest"
	"github.com/idemspec/idemspec/internal/testenv"
	"github.com/idemspec/idemspec/scenarios"
	"github.com/idemspec/idemspec/scenarios/property"
	"github.com/idemspec/idemspec/targets"
)

// countingServer is the reference fake behind a counter: every request
// that reaches the target is counted here, so limits are measured where
// they matter, at the server.
type countingServer struct {
	next                  http.Handler
	mu                    sync.Mutex
	count                 int
	deletes               int
	inFlight, maxInFlight int
	arrivals              []time.Time
	keys                  []string
	markers               map[string]bool
}

func (c *countingServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	c.mu.Lock()
	c.count++
	c.inFlight++
	c.maxInFlight = max(c.maxInFlight, c.inFlight)
	c.arrivals = append(c.arrivals, time.Now())
	if k := r.Header.Get(fakes.DefaultKeyHeader); k != "" {
		c.keys = append(c.keys, k)
	}
	var p struct{ Marker string }
	if r.Method == http.MethodPost && json.Unmarshal(body, &p) == nil && p.Marker != "" {
		c.markers[p.Marker] = true
	}
	if r.Method == http.MethodDelete {
		c.deletes++
	}
	c.mu.Unlock()
	c.next.ServeHTTP(w, r)
	c.mu.Lock()
	c.inFlight--
	c.mu.Unlock()
}

func (c *countingServer) requests() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.count
}

// countingTarget starts a counted reference fake and writes a target
// file for it; extra is appended to the file.
func countingTarget(t *testing.T, extra string) (*countingServer, *fakes.Server, string) {
	t.Helper()
	server, err := fakes.Open(fakes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Close() })
	c := &countingServer{next: server.Handler(), markers: map[string]bool{}}
	addr := serveLoopback(t, c)
	file := writeFile(t, "counted.yaml", fmt.Sprintf(`
name: counted
base_url: http://%s
%soracle:
  list:
    path: /resources?marker={{.Marker}}
    items: items
%s`, addr, createAndList, extra))
	return c, server, file
}

// createAndList is the fakes' create call and list oracle, as a target
// file says them.
const createAndList = `create:
  path: /resources
  body: '{"marker":"{{.Marker}}","amount":{{.Variant}}}'
  id_field: id
`

// serveLoopback serves h on a fresh loopback port until the test ends.
func serveLoopback(t *testing.T, h http.Handler) net.Addr {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr()
}

func TestRemoteTargetRefusedUnlessAllowed(t *testing.T) {
	// 192.0.2.1 is TEST-NET-1: nothing answers there, and nothing is sent.
	const remote = `
base_url: http://192.0.2.1:8080
create: {path: /r, body: '{"m":"{{.Marker}}","v":{{.Variant}}}', id_field: id}
oracle: {list: {path: "/r?m={{.Marker}}"}}
`
	file := writeFile(t, "remote.yaml", remote)
	r := idemspec(t, "run", "--target", file, "--report-dir", t.TempDir())
	if r.code != 2 {
		t.Fatalf("exit %d, want 2\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"192.0.2.1 is not a loopback address", "allow_remote: true", "--allow-remote", file} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("the refusal does not say %q:\n%s", want, r.stderr)
		}
	}
	for _, allowed := range [][]string{
		{"run", "--target", file, "--allow-remote", "--dry-run"},
		{"run", "--target", writeFile(t, "allowed.yaml", remote+"allow_remote: true\n"), "--dry-run"},
	} {
		if r := idemspec(t, allowed...); r.code != 0 || !strings.Contains(r.stdout, "dry run") {
			t.Errorf("%v: exit %d, want 0 with the plan\n%s%s", allowed, r.code, r.stdout, r.stderr)
		}
	}
	loop := writeFile(t, "loop.yaml", strings.Replace(remote, "192.0.2.1", "localhost", 1))
	if r := idemspec(t, "run", "--target", loop, "--dry-run"); r.code != 0 {
		t.Errorf("localhost was refused: exit %d\n%s", r.code, r.stderr)
	}
}

func TestDryRunSendsNothing(t *testing.T) {
	c, _, file := countingTarget(t, "")
	r := idemspec(t, "run", "--target", file, "--dry-run", "--budget", "50", "--concurrency", "4")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if n := c.requests(); n != 0 {
		t.Errorf("the dry run sent %d requests, want 0", n)
	}
	for _, want := range []string{"S1", "S4", "K5", "P1", "shares P1's search", "shrinking a failure sends more", "total", "budget 50", "concurrency 4", "response-loss", "cleanup: none"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the plan does not mention %q:\n%s", want, r.stdout)
		}
	}
	// S4 with a concurrency ceiling of 4: its bursts shrink to 4, and the
	// dry run says what S4's own plan makes of that.
	target, err := fakename.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	defer target.Close()
	s := harness.DefaultSettings()
	s.Limits.Concurrency = 4
	capped, err := scenarios.Plan(target, s, scenarios.DefaultTuning(), property.DefaultConfig(), "S4")
	if err != nil || len(capped) != 1 {
		t.Fatalf("plan: %v %v", capped, err)
	}
	free, _ := scenarios.Plan(target, harness.DefaultSettings(), scenarios.DefaultTuning(), property.DefaultConfig(), "S4")
	if capped[0].Requests >= free[0].Requests {
		t.Errorf("S4 plans %d requests under a ceiling of 4 and %d without", capped[0].Requests, free[0].Requests)
	}
	if !regexp.MustCompile(fmt.Sprintf(`(?m)^S4\s+%d\s`, capped[0].Requests)).MatchString(r.stdout) {
		t.Errorf("S4's plan does not reflect the ceiling (want %d requests):\n%s", capped[0].Requests, r.stdout)
	}
}

// TestPlanMatchesWhatIsSent runs every check of `idemspec run` alone
// against the reference and holds what idemspec sent (the gate counts
// every request, oracle reads and requests a fault swallows included) to
// the dry run's plan for it: never more than its bound, and, where the
// plan is exact (the usual count equals the bound), exactly that.
func TestPlanMatchesWhatIsSent(t *testing.T) {
	long(t)
	t.Parallel()
	for _, sc := range scenarios.Checks() {
		if sc.Plan == nil {
			continue // a client check: `idemspec client` runs it
		}
		t.Run(sc.ID, func(t *testing.T) {
			t.Parallel()
			planMatchesWhatIsSent(t, "fake:reference", sc.ID)
		})
	}
}

// With the key in the body there is no duplicated header: the malformed
// keys are one fewer, and the plan says so.
func TestPlanMatchesWhatIsSentWithTheKeyInTheBody(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"K1", "K2", "K2a"} {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			planMatchesWhatIsSent(t, "fake:reference?key_in=body", id)
		})
	}
}

// An action on a parent sends its setup once per marker: the plan counts
// each check's markers, and every check still sends what it planned.
func TestPlanMatchesWhatIsSentWithSetup(t *testing.T) {
	long(t)
	t.Parallel()
	for _, sc := range scenarios.Checks() {
		if sc.Plan == nil {
			continue
		}
		t.Run(sc.ID, func(t *testing.T) {
			t.Parallel()
			planMatchesWhatIsSent(t, "fake:reference?action=events", sc.ID)
		})
	}
}

// planMatchesWhatIsSent runs check id against target after its dry run,
// and holds the count sent to the plan's.
func planMatchesWhatIsSent(t *testing.T, target, id string) {
	t.Helper()
	sent := regexp.MustCompile(`(?m)^requests sent: (\d+) of a budget`)
	plan := idemspec(t, "run", "--dry-run", "--target", target, "--label-filter", id)
	m := regexp.MustCompile(`(?m)^total\s+(\d+)\s+(\d+)`).FindStringSubmatch(plan.stdout)
	if m == nil {
		t.Fatalf("no total in the plan:\n%s", plan.stdout)
	}
	usual, _ := strconv.Atoi(m[1])
	most, _ := strconv.Atoi(m[2])
	// A budget far above any plan, only so that idemspec counts.
	r := run(t, "--target", target, "--label-filter", id, "--budget", "1000000")
	n := sent.FindStringSubmatch(r.stdout)
	if r.code != 0 || n == nil {
		t.Fatalf("exit %d, no count of requests sent\n%s%s", r.code, r.stdout, r.stderr)
	}
	got, _ := strconv.Atoi(n[1])
	if got > most || (usual == most && got != usual) || got == 0 {
		t.Errorf("idemspec sent %d requests; the plan said %d, at most %d\n%s", got, usual, most, plan.stdout)
	}
}

func TestBudgetIsNeverExceeded(t *testing.T) {
	long(t)
	t.Parallel()
	for _, budget := range []int{5, 40} {
		t.Run(strconv.Itoa(budget), func(t *testing.T) {
			c, _, file := countingTarget(t, "")
			r := run(t, "--target", file, "--budget", strconv.Itoa(budget))
			if got := c.requests(); got > budget {
				t.Fatalf("the server saw %d requests with a budget of %d", got, budget)
			}
			if r.code != 2 {
				t.Errorf("exit %d: a run whose budget ran out must exit 2\n%s", r.code, r.stdout)
			}
			if !strings.Contains(r.stdout, "request budget") || !strings.Contains(r.stdout, fmt.Sprintf("of a budget of %d", budget)) {
				t.Errorf("the output does not say the budget ran out:\n%s", r.stdout)
			}
		})
	}
}

func TestRateAndConcurrencyLimits(t *testing.T) {
	c, _, file := countingTarget(t, "")
	// Burst 2 makes the rate's bucket hold 2: 14 requests (the preflight's
	// oracle read, create and id_field reading, 10 sends, the oracle read)
	// at 10/s take at least 1.2 s from the first send. The server sees arrivals, and a
	// loaded machine can deliver the first one late: a span of 1 s still
	// proves the pacing (unpaced, 14 local requests take milliseconds).
	r := run(t, "--target", file, "--label-filter", "S1", "--repeats", "10", "--burst", "2", "--rate", "10")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	c.mu.Lock()
	span := c.arrivals[len(c.arrivals)-1].Sub(c.arrivals[0])
	n := len(c.arrivals)
	c.mu.Unlock()
	if n != scenarios.PreflightRequests+10+1 || span < time.Second {
		t.Errorf("%d requests over %v at --rate 10: want %d over at least 1.2s", n, span, scenarios.PreflightRequests+10+1)
	}

	c, _, file = countingTarget(t, "")
	r = run(t, "--target", file, "--label-filter", "S4", "--concurrency", "3")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.maxInFlight > 3 || c.maxInFlight < 2 {
		t.Errorf("at most %d requests were in flight with --concurrency 3 (want 2 or 3: the burst is capped, not serialized)", c.maxInFlight)
	}
}

func TestKeysAndMarkersCarryTheRunID(t *testing.T) {
	t.Parallel()
	c, _, file := countingTarget(t, "")
	r := run(t, "--target", file, "--label-filter", "core")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	id := r.report.Run.ID
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(id) != 8 || len(c.keys) < 10 {
		t.Fatalf("run id %q, %d keys seen", id, len(c.keys))
	}
	for _, k := range c.keys {
		if !strings.HasPrefix(k, id) {
			t.Errorf("key %q does not carry the run id %s", k, id)
		}
	}
	for m := range c.markers {
		if !strings.HasPrefix(m, "idemspec-"+id+"-") {
			t.Errorf("marker %q does not carry the run id %s", m, id)
		}
	}
}

func TestCleanupDeletesWhatTheRunCreated(t *testing.T) {
	t.Parallel()
	c, server, file := countingTarget(t, "cleanup:\n  delete:\n    path: /resources/{{.ID}}\n")
	r := run(t, "--target", file, "--label-filter", "core")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.deletes == 0 || !strings.Contains(r.stdout, fmt.Sprintf("cleanup: deleted %d resources", c.deletes)) {
		t.Errorf("%d deletes; output:\n%s", c.deletes, r.stdout)
	}
	for m := range c.markers {
		rec := httptest.NewRecorder()
		server.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/resources?marker="+m, nil))
		if strings.Contains(rec.Body.String(), `"id"`) {
			t.Errorf("marker %s still has resources after the cleanup: %s", m, rec.Body.String())
		}
	}
}

func TestCleanupCommandRunsAfterInterrupt(t *testing.T) {
	out := filepath.Join(t.TempDir(), "cleaned")
	_, _, file := countingTarget(t, fmt.Sprintf("cleanup:\n  command: 'printf \"%%s\\n%%s\" \"$IDEMSPEC_RUN_ID\" \"$IDEMSPEC_MARKERS\" > %s'\n", out))
	interrupted := interruptAfterFirstCheck(t, "--target", file, "--label-filter", "core", "--report-dir", t.TempDir())
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("the cleanup command did not run after SIGINT: %v\n%s", err, interrupted)
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) < 2 || len(lines[0]) != 8 || !strings.HasPrefix(lines[1], "idemspec-"+lines[0]+"-") {
		t.Errorf("the cleanup command got %q: want the run id, then the run's markers", b)
	}
}

// interruptAfterFirstCheck runs the suite, sends SIGINT once the first
// verdict line is out, and returns everything it printed.
func interruptAfterFirstCheck(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := startRun(t, ctx, args...)
	signalled := s.firstVerdict() != ""
	if signalled {
		if err := s.cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
	}
	s.rest()
	s.cmd.Wait()
	if ctx.Err() != nil || !signalled {
		t.Fatalf("the run did not stop after SIGINT, or no check finished:\n%s%s", s.out, s.stderr.String())
	}
	return s.out + s.stderr.String()
}

// A target that refuses the harness's own first create (a wrong path, a
// body the API rejects) is an error of the run, said once, never a FAIL
// of every check.
func TestRefusedFirstCreateIsAnErrorNotAFail(t *testing.T) {
	_, _, file := countingTarget(t, "")
	wrong := writeFile(t, "wrong.yaml", strings.Replace(mustRead(t, file), "path: /resources\n", "path: /resource\n", 1))
	dir := t.TempDir()
	r := idemspec(t, "run", "--target", wrong, "--report-dir", dir)
	if r.code != 2 || !strings.Contains(r.stderr, "the target refused the create itself: check create.path/body (POST /resource answered 404") {
		t.Errorf("exit %d, stderr %q: want 2 and the refusal named", r.code, r.stderr)
	}
	if strings.Contains(r.stdout, "FAIL") {
		t.Errorf("a check FAILed:\n%s", r.stdout)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A second Ctrl-C during the cleanup skips it, as Ginkgo's message
// promises: the cleanup command (here one that ignores SIGTERM) is
// stopped with everything it started, and idemspec exits at once.
func TestSecondInterruptSkipsTheCleanup(t *testing.T) {
	t.Parallel()
	began := filepath.Join(t.TempDir(), "began")
	h := proctest.Hostiles()[0]
	_, _, file := countingTarget(t, fmt.Sprintf("cleanup:\n  command: %q\n", "touch "+began+"; "+h.Line))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := startRun(t, ctx, "--target", file, "--label-filter", "core", "--report-dir", t.TempDir())
	cmd, stderr := s.cmd, &s.stderr
	s.firstVerdict()
	cmd.Process.Signal(os.Interrupt)
	go s.rest()
	testenv.WaitFor(t, "the cleanup command began", func() bool { _, err := os.Stat(began); return err == nil })
	second := time.Now()
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	// Not skipped, the cleanup would run to its timeout (a minute) while
	// the command ignores SIGTERM: half of it separates the two whatever
	// the machine's load.
	if took := time.Since(second); took >= targets.DefaultCleanupTimeout/2 || ctx.Err() != nil {
		t.Errorf("idemspec took %v to exit after the second interrupt: it waited on the cleanup", took)
	}
	if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 2 {
		t.Errorf("exit %v, want 2", err)
	}
	if !strings.Contains(stderr.String(), "cleanup stopped (interrupted twice)") {
		t.Errorf("stderr does not say the cleanup was stopped:\n%s", stderr.String())
	}
	if left := proctest.GoneSoon(h.Sleep); len(left) > 0 {
		t.Errorf("the cleanup command left %v running", left)
	}
}
