package main_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/internal/freeport"
	"github.com/idemspec/idemspec/internal/testenv"
	"github.com/idemspec/idemspec/reports"
	"github.com/idemspec/idemspec/scenarios/mcptools"
)

// binary is the idemspec CLI, built once for the whole package and run
// fresh by every test (each matrix run is its own process: Ginkgo runs
// its specs once per process). It is a plain build, not a -race one,
// though `make test` passes -race: the race detector is for the code the
// test process runs, and the engine's packages (harness, scenarios,
// targets, fakes) run their concurrency in-process under -race in their
// own tests. An instrumented child would spend several times the CPU and
// memory of the binary users run, and a matrix's timing-sensitive checks
// (a tight burst, a crash's grace period) would judge a slower program.
var binary string

func TestMain(m *testing.M) {
	if os.Getenv(testAgentMode) != "" {
		os.Exit(runTestAgent())
	}
	var remove func()
	binary, remove = testenv.MustBuild(".", "idemspec")
	flag.Parse()
	// The package's tests mostly wait on the processes they start (a
	// target's work delay, a crash's grace period), not on CPU:
	// GOMAXPROCS at a time would leave CI's two cores idle most of the
	// run, and the three matrices alone would hold both slots (each runs
	// its entries from goroutines: see forEach).
	testenv.Parallel(parallelTests)
	code := m.Run()
	remove()
	os.Exit(code)
}

// parallelTests is how many of the package's parallel tests run at once
// when -parallel is not given: the three matrices and five others. The
// long tests are parallel (a sequential one holds up every parallel
// test until it ends), so this is what keeps the cores busy.
const parallelTests = 8

// long marks a test the fast tier leaves out: it runs whole suites
// against a managed process, a browser, a database or many seeds, or
// waits out timeouts. `make test` runs everything; `go test -short ./...`
// runs the unit tests, the judges and one pass of a sample of each
// matrix (fastTier).
func long(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("long: `make test` runs it, `go test -short` leaves it out")
	}
}

// matrixFanOut is how many entries of the detection matrix run at
// once, propertyFanOut of the property matrix and matrixClientFanOut of
// the client matrix, at most: a run is mostly waiting on the target
// (its work delays, a crash's grace period, the clean lane's timeouts)
// or the client, not CPU. Measured (/usr/bin/time on one `idemspec run`
// child, the reference): the suite without the properties spends 0.24
// CPU-seconds in 4.7 s of wall time, the property search 0.86 in 6.1 s;
// client entries start interpreters with second-scale deadlines, and
// spend more of their time on CPU (the reference agent 0.36 CPU-s in
// 2.3 s, the Python client 1.5 in 5.7 s). IDEMSPEC_MATRIX_FANOUT
// overrides both server figures (1 runs them one at a time, to tell a
// load-dependent verdict from a wrong one).
const (
	matrixFanOut       = 8
	propertyFanOut     = 12
	matrixClientFanOut = 8
)

// The matrices' weights: a run's share of a core, in units of the
// detection matrix's (see matrixFanOut). The three matrices draw their
// runs from one budget, matrixUnits, in the order they ask: what one
// leaves when it ends goes to the others, and the package's load never
// exceeds that of eight detection runs, eight property runs and four
// client runs at once.
const (
	detectionWeight = 1
	propertyWeight  = 2
	clientWeight    = 3
)

var matrixUnits = newUnits(8*detectionWeight + 8*propertyWeight + 4*clientWeight)

// serverFanOut is fanOut, or IDEMSPEC_MATRIX_FANOUT when set.
func serverFanOut(t *testing.T, fanOut int) int {
	t.Helper()
	v := os.Getenv("IDEMSPEC_MATRIX_FANOUT")
	if v == "" {
		return fanOut
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("IDEMSPEC_MATRIX_FANOUT=%q", v)
	}
	return n
}

// units is a budget of load that runs take a weight of and give back,
// first come first served: a client run's three units are not taken
// from it one by one by the server runs that asked after it.
type units struct {
	mu            sync.Mutex
	cond          *sync.Cond
	free          int
	next, serving uint64 // tickets: the next to hand out, the one served now
}

func newUnits(n int) *units {
	u := &units{free: n}
	u.cond = sync.NewCond(&u.mu)
	return u
}

// take waits for its turn and for n units, and takes them.
func (u *units) take(n int) {
	u.mu.Lock()
	defer u.mu.Unlock()
	ticket := u.next
	u.next++
	for ticket != u.serving || u.free < n {
		u.cond.Wait()
	}
	u.free -= n
	u.serving++
	u.cond.Broadcast()
}

func (u *units) give(n int) {
	u.mu.Lock()
	u.free += n
	u.mu.Unlock()
	u.cond.Broadcast()
}

// forEach runs fn as one subtest per item, at most fanOut at a time
// from goroutines, each taking weight of matrixUnits while it runs,
// beside the package's other tests. t.Parallel would hold them to
// -parallel (GOMAXPROCS: two on CI), and a matrix's processes would
// leave the cores idle most of its run. Items start in their order (a
// slot is taken before an item's goroutine starts), so a caller can put
// its longest first.
func forEach[T any](t *testing.T, fanOut, weight int, items []T, name func(T) string, fn func(*testing.T, T)) {
	t.Helper()
	slots := make(chan struct{}, fanOut)
	var wg sync.WaitGroup
	for _, it := range items {
		slots <- struct{}{}
		matrixUnits.take(weight)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			defer matrixUnits.give(weight)
			t.Run(name(it), func(t *testing.T) { fn(t, it) })
		}()
	}
	wg.Wait()
}

// repeat is one run of a matrix's entry. The matrices hand forEach
// runs, not entries, so an entry's repeats go side by side: run one
// after another inside their entry, the TypeScript agent's five runs
// over MCP (40 s each beside the other matrices) were a 200-second
// chain that every other entry had ended before, and the package's
// longest test. Every entry still makes all its runs.
type repeat[T any] struct {
	entry T
	i, of int // run i+1 of `of`
}

// repeats are each entry's runs, entry by entry in the entries' order.
func repeats[T any](entries []T, runs func(T) int) []repeat[T] {
	var out []repeat[T]
	for _, e := range entries {
		n := runs(e)
		for i := 0; i < n; i++ {
			out = append(out, repeat[T]{entry: e, i: i, of: n})
		}
	}
	return out
}

// String is how a failure names the run: "run 2 of 5".
func (r repeat[T]) String() string { return fmt.Sprintf("run %d of %d", r.i+1, r.of) }

// repeatName names a run's subtest: its entry's name, and the run's
// number when the entry makes several (TestX/python/run-2).
func repeatName[T any](name func(T) string) func(repeat[T]) string {
	return func(r repeat[T]) string {
		if r.of == 1 {
			return name(r.entry)
		}
		return fmt.Sprintf("%s/run-%d", name(r.entry), r.i+1)
	}
}

// result is one CLI invocation.
type result struct {
	code           int
	stdout, stderr string
	report         reports.Report
	elapsed        time.Duration
}

// idemspec runs the CLI with a deadline, so a hang is a test failure.
func idemspec(t *testing.T, args ...string) result {
	t.Helper()
	return idemspecEnv(t, nil, args...)
}

// idemspecEnv runs the CLI with env added to the environment.
func idemspecEnv(t *testing.T, env []string, args ...string) result {
	t.Helper()
	// A hang's bound, not a speed goal: under two test suites at once
	// (a load of 30 and more on two cores) a whole suite can take three
	// minutes.
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	return idemspecWithin(ctx, t, env, args...)
}

// idemspecWithin runs the CLI with env added, bounded by ctx.
func idemspecWithin(ctx context.Context, t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String(), elapsed: time.Since(start)}
	if ctx.Err() != nil {
		t.Fatalf("idemspec %v did not finish in time\nstdout:\n%s\nstderr:\n%s", args, r.stdout, r.stderr)
	}
	if exit, ok := err.(*exec.ExitError); ok {
		r.code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("idemspec %v: %v", args, err)
	}
	return r
}

// run runs the suite and reads its JSON report.
func run(t *testing.T, args ...string) result {
	t.Helper()
	return runEnv(t, nil, append([]string{"--report-dir", t.TempDir()}, args...)...)
}

// runEnv runs the suite with env added and reads its JSON report; args
// must include --report-dir.
func runEnv(t *testing.T, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	return runWithin(ctx, t, env, args...)
}

// runWithin is runEnv bounded by ctx.
func runWithin(ctx context.Context, t *testing.T, env []string, args ...string) result {
	t.Helper()
	dir := ""
	for i, a := range args {
		if a == "--report-dir" && i+1 < len(args) {
			dir = args[i+1]
		}
	}
	r := idemspecWithin(ctx, t, env, append([]string{"run"}, args...)...)
	rep, err := reports.ReadJSON(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatalf("idemspec %v (exit %d): %v\nstdout:\n%s\nstderr:\n%s", args, r.code, err, r.stdout, r.stderr)
	}
	r.report = rep
	return r
}

// serverChecks is the catalogue but the client and workflow checks:
// what `idemspec run` judges (client mode judges the rest).
func serverChecks() []check.Entry {
	var out []check.Entry
	for _, c := range check.All() {
		if c.Group != "client" && c.Group != "workflow" && c.Group != mcptools.Group {
			out = append(out, c)
		}
	}
	return out
}

// freePort is a free loopback port for a server a test starts later
// (or restarts), outside the kernel's ephemeral range, where the many
// listeners and connections of the tests running beside it cannot land.
func freePort(t *testing.T) int {
	t.Helper()
	port, err := freeport.Pick()
	if err != nil {
		t.Fatal(err)
	}
	return port
}

func portOpen(port int) bool {
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRunDefaultPassesAndWritesReports(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := idemspec(t, "run", "--report-dir", dir)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, c := range serverChecks() {
		if !strings.Contains(r.stdout, fmt.Sprintf("PASS  %-4s %s", c.ID, c.Title)) {
			t.Errorf("no PASS line for %s in:\n%s", c.ID, r.stdout)
		}
	}
	for _, f := range []string{"report.json", "junit.xml", "report.md", "report.html", "ginkgo.log"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
}

func TestBadTargetFileExitsTwoNamingFileLineField(t *testing.T) {
	cases := []struct {
		name, content, want string
	}{
		{"misspelled", "base_url: http://127.0.0.1:1\ncreate:\n  path: /r\n  bdy: '{}'\n", ":4: create.bdy: unknown field (did you mean \"body\"?)"},
		{"missing", "base_url: http://127.0.0.1:1\ncreate:\n  path: /r\n  body: '{\"m\":\"{{.Marker}}\"}'\n  id_field: id\n", ":1: oracle: missing required field"},
		{"status override", "base_url: http://127.0.0.1:1\ncreate:\n  path: /r\n  body: '{\"m\":\"{{.Marker}}\",\"v\":{{.Variant}}}'\n  id_field: id\noracle:\n  list:\n    path: /r?m={{.Marker}}\nstatuses:\n  in_flight: 201\n",
			":10: statuses.in_flight: 201 is not an error status (400-599)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := writeFile(t, "target.yaml", c.content)
			r := idemspec(t, "run", "--target", p, "--report-dir", t.TempDir())
			if r.code != 2 {
				t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, p+c.want) {
				t.Errorf("stderr %q does not contain %q", r.stderr, p+c.want)
			}
			if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic") {
				t.Errorf("stack trace on bad input:\n%s", r.stderr)
			}
		})
	}
}

func TestUnreachableTargetExitsTwoQuickly(t *testing.T) {
	p := writeFile(t, "target.yaml", `
base_url: http://127.0.0.1:1
create:
  path: /resources
  body: '{"marker":"{{.Marker}}","amount":{{.Variant}}}'
  id_field: id
oracle:
  list:
    path: /resources?marker={{.Marker}}
    items: items
`)
	r := idemspec(t, "run", "--target", p, "--report-dir", t.TempDir())
	if r.code != 2 {
		t.Fatalf("exit %d, want 2\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "not reachable") || strings.Contains(r.stderr, "goroutine ") {
		t.Errorf("want a plain 'not reachable' message, got:\n%s", r.stderr)
	}
	// Quickly: it gives up at its first read, before any check, however
	// long the machine takes over that.
	if !strings.Contains(strings.ToLower(r.stdout), "no check ran") {
		t.Errorf("checks ran against a target that is not reachable:\n%s", r.stdout)
	}
}

func TestBadFlagsExitTwo(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--burst", "0"},
		{"run", "--label-filter", "S1 &&"},
		{"run", "--retry-attempts", "0"},
		{"run", "--retry-timeout", "0s"},
		{"run", "--search-workers", "65"},
		{"run", "--search-time", "-1s"},
		{"run", "--target", "fake:no-such-mutant"},
		{"client", "--workflow", "--cmd", "true", "--deadline", "2m"},
		{"frobnicate"},
	} {
		if r := idemspec(t, args...); r.code != 2 {
			t.Errorf("idemspec %v: exit %d, want 2\n%s", args, r.code, r.stderr)
		}
	}
}

func TestListShowsTheCatalogue(t *testing.T) {
	r := idemspec(t, "list")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, c := range check.All() {
		line := ""
		for _, l := range strings.Split(r.stdout, "\n") {
			if strings.HasPrefix(l, c.ID+" ") {
				line = l
			}
		}
		for _, want := range []string{string(c.Level), c.Group, c.Clause, c.Title} {
			if !strings.Contains(line, want) {
				t.Errorf("%s: line %q lacks %q", c.ID, line, want)
			}
		}
	}
}

// referenceAPI is how a target file describes the reference server's
// create endpoint and list oracle (the fakes and `idemspec serve`).
const referenceAPI = `create:
  path: /resources
  body: '{"marker":"{{.Marker}}","amount":{{.Variant}}}'
  id_field: id
oracle:
  list:
    path: /resources?marker={{.Marker}}
    items: items
`
