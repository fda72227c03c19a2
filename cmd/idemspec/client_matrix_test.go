package main_test

import (
	"cmp"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/fakes/mutant"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/internal/proc/proctest"
	"github.com/idemspec/idemspec/reports"
)

// The client detection matrix: the reference client (Go) and the Python
// example pass C1-C7, and each mutant client is caught by exactly its
// Catches, every run: FAIL at a MUST check, WARN at a SHOULD (C5, W3).

type clientEntry struct {
	name    string
	command string
	// args are further flags of `idemspec client` (the key's place).
	args    []string
	catches []string
	// skips must be SKIP: the check they rest on fails (mutant.Mutant).
	skips []string
	// slack covers an interpreter's start-up and its state file's fsync
	// on a busy machine: with two test suites running at once, the Python
	// example once sent no create within its 3 s deadline plus 5 s.
	slack time.Duration
	// requires skips the entry (fails it with CI=true) when what it runs
	// is not installed (nil: always there).
	requires func(t *testing.T)
	// runs is how many times the full tier runs the entry (0: five).
	runs int
	// serial: the entry's runs share a file (an MCP twin's server keeps
	// its records in one), so they run one after another, not side by
	// side as other entries' runs do (repeat).
	serial bool
	// workflow: the entry runs the workflow shape (--workflow, W1-W5).
	workflow bool
}

// twinEntries are the programs a team ships, unmodified: the reference
// agent and each of its mutants as a twin that reads only API_URL and
// keeps its state in its working directory, and the standard-library
// Python agent with its twin that draws a new key per attempt, each
// judged through --target against the reference served as a process
// (examples/targets/process-reference.yaml): each fails exactly its
// mutant's checks.
func twinEntries(dir string) []clientEntry {
	agent := binary + " agent --base-url-env API_URL --deadline 5s"
	pythonAgent := python() + " " + filepath.Join(dir, "..", "..", "examples", "clients", "python-agent", "agent.py")
	twin := []string{"--target", processExample, "--base-url-env", "API_URL"}
	entries := []clientEntry{
		{name: "twin/reference", command: agent, args: twin, slack: agentSlack, runs: 2},
		{name: "twin/python-agent", command: pythonAgent, args: twin, slack: pythonSlack, runs: 1},
		{name: "twin/python-agent --new-key-per-attempt", command: pythonAgent + " --new-key-per-attempt", args: twin, catches: []string{"C1", "C6"}, slack: pythonSlack, runs: 1},
	}
	for _, m := range fakes.MutantsOf(fakes.OfClient) {
		entries = append(entries, clientEntry{name: "twin/" + m.Name, command: agent + " --bug " + m.Name, args: twin, catches: m.CaughtBy(), slack: agentSlack, runs: 2})
	}
	return entries
}

// token is the bearer token the token entries' clients send, as an
// SDK's do: the reference server files their resources under it.
const token = "sk-test-123"

func clientEntries(t *testing.T) []clientEntry {
	_, file, _, _ := runtime.Caller(0)
	pythonScript := filepath.Join(filepath.Dir(file), "..", "..", "examples", "clients", "python", "client.py")
	entries := []clientEntry{
		{name: "reference", command: binary + " agent", slack: agentSlack},
		{name: "python", command: python() + " " + pythonScript, slack: pythonSlack},
	}
	for _, m := range fakes.MutantsOf(fakes.OfClient) {
		entries = append(entries, clientEntry{name: m.Name, command: binary + " agent --bug " + m.Name, catches: m.CaughtBy(), slack: agentSlack})
	}
	entries = append(entries, twinEntries(filepath.Dir(file))...)
	// The key in the body or a query parameter: the clients still pass
	// (the Python one, slow to start, with the body key only), and a new
	// key on a retry is C1's alone, not also a changed payload. Twice
	// each, as the server matrix runs its key places: where the key
	// travels changes what is read and written, not when, and the
	// entries with the key in a header run five times.
	entries = append(entries, clientEntry{name: "python?key_in=body", command: python() + " " + pythonScript, args: []string{"--key-in", fakes.KeyInBody}, slack: pythonSlack, runs: 2})
	for _, in := range []string{fakes.KeyInBody, fakes.KeyInQuery} {
		args := []string{"--key-in", in}
		entries = append(entries, clientEntry{name: "reference?key_in=" + in, command: binary + " agent", args: args, slack: agentSlack, runs: 2})
		for _, name := range []string{"new-key-per-retry", "new-payload-per-retry"} {
			m, err := fakes.LookupMutant(fakes.OfClient, name)
			if err != nil {
				t.Fatal(err)
			}
			entries = append(entries, clientEntry{name: name + "?key_in=" + in, command: binary + " agent --bug " + name, args: args, catches: m.CaughtBy(), slack: agentSlack, runs: 2})
		}
	}
	// A bearer token on every request: judged as without one. The
	// reference and the Python example pass, every mutant is caught by
	// its check, and twice each is enough (the token changes the tenant,
	// not the timing).
	entries = append(entries,
		clientEntry{name: "reference?bearer", command: binary + " agent --bearer " + token, slack: agentSlack, runs: 2},
		clientEntry{name: "python?bearer", command: "API_TOKEN=" + token + " " + python() + " " + pythonScript, slack: pythonSlack, runs: 2})
	for _, m := range fakes.MutantsOf(fakes.OfClient) {
		entries = append(entries, clientEntry{name: m.Name + "?bearer", command: binary + " agent --bearer " + token + " --bug " + m.Name, catches: m.CaughtBy(), slack: agentSlack, runs: 2})
	}
	// The workflow shape: the reference agent and the Python example
	// pass W1-W5 (with the key in a header, in the body, and with a
	// token), and each mutant agent fails exactly its entry's checks.
	workflow := filepath.Join(filepath.Dir(file), "..", "..", "examples", "clients", "python", "workflow.py")
	wf := []string{"--workflow"}
	entries = append(entries,
		clientEntry{name: "workflow/reference", command: binary + " agent", args: wf, slack: agentSlack, workflow: true},
		clientEntry{name: "workflow/reference?key_in=body", command: binary + " agent", args: append(wf, "--key-in", fakes.KeyInBody), slack: agentSlack, workflow: true, runs: 2},
		clientEntry{name: "workflow/reference?bearer", command: binary + " agent --bearer " + token, args: wf, slack: agentSlack, workflow: true, runs: 2},
		clientEntry{name: "workflow/python", command: python() + " " + workflow, args: wf, slack: pythonSlack, workflow: true, runs: 3},
		clientEntry{name: "workflow/python?key_in=body", command: python() + " " + workflow, args: append(wf, "--key-in", fakes.KeyInBody), slack: pythonSlack, workflow: true, runs: 2})
	// A workflow mutant's fault lands on its step through a hold, not a
	// race: three runs each are enough.
	for _, m := range fakes.MutantsOf(fakes.OfWorkflow) {
		entries = append(entries, clientEntry{name: "workflow/" + m.Name, command: binary + " agent --bug " + m.Name, args: wf, catches: m.CaughtBy(), skips: m.Skips, slack: agentSlack, workflow: true, runs: 3})
	}
	return append(entries, mcpClientEntries()...)
}

// The slack of the matrices' programs (clientEntry.slack): Python's, and
// idemspec's own agent's, whose start over MCP stdio is two processes
// (once, on a machine running two test suites, neither had sent a create
// 3 s + 2 s after it was started).
const (
	pythonSlack = 20 * time.Second
	agentSlack  = 8 * time.Second
)

// matrixDeadline is the client matrix's --deadline, unless an entry's
// args give their own.
const matrixDeadline = 5 * time.Second

// clientDeadline is the deadline an entry's program runs under.
func clientDeadline(e clientEntry) time.Duration {
	d := matrixDeadline
	for i, a := range e.args {
		if a == "--deadline" && i+1 < len(e.args) {
			if v, err := time.ParseDuration(e.args[i+1]); err == nil {
				d = v
			}
		}
	}
	return d
}

// client runs client mode and reads its JSON report.
func client(t *testing.T, args ...string) result {
	t.Helper()
	dir := t.TempDir()
	r := idemspec(t, append([]string{"client", "--report-dir", dir}, args...)...)
	rep, err := reports.ReadJSON(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatalf("idemspec client %v (exit %d): %v\nstdout:\n%s\nstderr:\n%s", args, r.code, err, r.stdout, r.stderr)
	}
	r.report = rep
	return r
}

// clientChecks are the checks of client mode's shape: C1-C7, or with
// workflow W1-W5.
func clientChecks(workflow bool) []check.Entry {
	group := "client"
	if workflow {
		group = "workflow"
	}
	var out []check.Entry
	for _, c := range check.All() {
		if c.Group == group {
			out = append(out, c)
		}
	}
	return out
}

// clientRuns is how many times the full tier runs a client entry.
func clientRuns(t *testing.T, e clientEntry) int { return matrixRuns(t, cmp.Or(e.runs, 5)) }

// clientRepeats are the client entries' runs (repeat), the longest
// first, so that a slow run does not start last and run on alone: a
// run's length is its slack, which is longer for the interpreters,
// whose runs are the slow ones (a Python run takes four times a
// reference agent's), and a client caught by C3 never ends by itself:
// its run also waits out C3's kill, its deadline plus its slack. An
// entry whose runs share a file (serial) is one item that makes them
// one after another.
func clientRepeats(t *testing.T, entries []clientEntry) []repeat[clientEntry] {
	cost := func(e clientEntry) time.Duration {
		run := e.slack
		if slices.Contains(e.catches, "C3") {
			run += clientDeadline(e) + e.slack
		}
		if e.serial {
			run *= time.Duration(clientRuns(t, e))
		}
		return run
	}
	slices.SortStableFunc(entries, func(a, b clientEntry) int { return cmp.Compare(cost(b), cost(a)) })
	return repeats(entries, func(e clientEntry) int {
		if e.serial {
			return 1
		}
		return clientRuns(t, e)
	})
}

func TestClientDetectionMatrix(t *testing.T) {
	t.Parallel()
	entries := clientRepeats(t, fastTier(clientEntries(t), func(e clientEntry) []string { return e.catches }))
	forEach(t, matrixClientFanOut, clientWeight, entries, repeatName(func(e clientEntry) string { return e.name }), func(t *testing.T, run repeat[clientEntry]) {
		e := run.entry
		if e.requires != nil {
			e.requires(t)
		}
		if !e.serial {
			clientRun(t, run)
			return
		}
		n := clientRuns(t, e)
		for i := 0; i < n; i++ {
			clientRun(t, repeat[clientEntry]{entry: e, i: i, of: n})
		}
	})
}

// clientRun is one run of the client matrix's entry: its verdicts are
// exactly the entry's.
func clientRun(t *testing.T, run repeat[clientEntry]) {
	t.Helper()
	e := run.entry
	// A mutant caught by SHOULD checks alone warns and exits 0
	// (TestClientStrictTurnsWarnIntoFailure shows --strict's 1).
	wantCode := wantExit(t, mutant.Mutant{Name: e.name, Catches: mutant.Checks(e.catches...)})
	// The deadline leaves a program room to retry on a busy machine: a
	// mutant that ran out of time before its resend shows no defect.
	r := client(t, append([]string{"--cmd", e.command, "--attempt-budget", "3", "--deadline", matrixDeadline.String(),
		// Generous: a timeout that fires before the request reaches the
		// server (over MCP stdio, before the server's process has
		// started) leaves nothing to judge.
		"--attempt-timeout", "2s", "--slack", e.slack.String()}, e.args...)...)
	verdicts := map[string]check.Status{}
	for _, c := range r.report.Checks {
		verdicts[c.ID] = c.Verdict
	}
	var missed, falseAlarms []string
	for _, c := range clientChecks(e.workflow) {
		v, ran := verdicts[c.ID]
		switch {
		case !ran:
			t.Errorf("%s: %s missing from the report", run, c.ID)
		case slices.Contains(e.skips, c.ID):
			if v != check.SKIP {
				missed = append(missed, c.ID+"="+string(v)+" (want SKIP)")
			}
		case slices.Contains(e.catches, c.ID) && v != caught(c):
			missed = append(missed, c.ID+"="+string(v))
		case !slices.Contains(e.catches, c.ID) && v != check.PASS:
			falseAlarms = append(falseAlarms, c.ID+"="+string(v))
		}
	}
	for _, c := range r.report.Checks {
		if (c.Group == "workflow") != e.workflow || c.Group != "client" && c.Group != "workflow" {
			t.Errorf("%s: %s check %s in the report of %s", run, c.Group, c.ID, e.name)
		}
	}
	sort.Strings(missed)
	sort.Strings(falseAlarms)
	if len(missed)+len(falseAlarms) > 0 || r.code != wantCode {
		t.Fatalf("%s: exit %d (want %d), missed %v, false alarms %v\n%s%s", run, r.code, wantCode, missed, falseAlarms, r.stdout, r.stderr)
	}
}

// A client that never ends is killed at the deadline plus slack, does
// not hold idemspec up, and, having sent nothing, is ERROR (nothing to
// judge) with the kill named: exit 2, not a verdict on its retries.
func TestHangingClientIsKilledAndJudged(t *testing.T) {
	long(t)
	t.Parallel()
	// The client would run 1000 s: an idemspec that waited for it would
	// outlast the bound every CLI run of the tests has (idemspecEnv).
	r := client(t, "--cmd", proctest.Sleep(), "--deadline", "1s", "--attempt-timeout", "200ms", "--slack", "500ms", "--label-filter", "C3 || C4")
	if r.code != 2 {
		t.Errorf("exit %d for a client that never sent a request, want 2\n%s", r.code, r.stdout)
	}
	judged := 0
	for _, c := range r.report.Checks {
		switch c.Verdict {
		case check.SKIP:
		case check.ERROR:
			judged++
			if !strings.Contains(c.Reason, "sent no create request") || !strings.Contains(c.Reason, "killed: still running after") {
				t.Errorf("%s: reason %q, want the missing create and the kill", c.ID, c.Reason)
			}
		default:
			t.Errorf("%s: %s for a client that never sent a request, want ERROR", c.ID, c.Verdict)
		}
	}
	if judged != 2 {
		t.Errorf("want C3 and C4 ERROR, got %d:\n%s", judged, r.stdout)
	}
}

// TestClientStrictTurnsWarnIntoFailure: a client caught by a SHOULD
// check alone (no-reconcile, by C5) warns and exits 0; with --strict
// the same WARN exits 1.
func TestClientStrictTurnsWarnIntoFailure(t *testing.T) {
	long(t)
	t.Parallel()
	const mutant = "no-reconcile"
	m, err := fakes.LookupMutant(fakes.OfClient, mutant)
	if err != nil {
		t.Fatal(err)
	}
	if wantExit(t, m) != 0 {
		t.Fatalf("%s breaks a MUST check: it cannot show strict mode", mutant)
	}
	for _, tc := range []struct {
		strict bool
		code   int
	}{{false, 0}, {true, 1}} {
		args := []string{"--cmd", binary + " agent --bug " + mutant, "--attempt-budget", "3", "--deadline", "3s", "--attempt-timeout", "1s", "--slack", "2s", "--label-filter", "C5"}
		if tc.strict {
			args = append(args, "--strict")
		}
		r := client(t, args...)
		if r.code != tc.code || r.report.Summary.Warn != 1 || r.report.Summary.Fail != 0 {
			t.Errorf("strict=%t: exit %d (want %d), summary %+v\n%s%s", tc.strict, r.code, tc.code, r.report.Summary, r.stdout, r.stderr)
		}
		if !strings.Contains(r.stdout, "WARN  C5") {
			t.Errorf("strict=%t: no WARN line for C5:\n%s", tc.strict, r.stdout)
		}
	}
}

func TestClientNeedsACommand(t *testing.T) {
	r := idemspec(t, "client")
	if r.code != 2 || !strings.Contains(r.stderr, "--cmd is required") || strings.Contains(r.stderr, "goroutine") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// A job's program that never ends is killed at the deadline plus slack
// in every run, every W check judges it (it sent no step: FAIL at a
// MUST, SKIP at a SHOULD, which has no resend to judge), and it does not
// hold idemspec up.
func TestHangingJobAgentIsKilledAndJudged(t *testing.T) {
	long(t)
	t.Parallel()
	// The program would run 1000 s: see TestHangingClientIsKilledAndJudged.
	r := client(t, "--workflow", "--cmd", proctest.Sleep(), "--deadline", "1s", "--attempt-timeout", "200ms", "--slack", "500ms")
	if r.code != 1 {
		t.Errorf("exit %d for a program that never sent a step, want 1\n%s", r.code, r.stdout)
	}
	for _, c := range clientChecks(true) {
		found := false
		for _, got := range r.report.Checks {
			if got.ID == c.ID {
				found = true
				want := check.FAIL
				if c.Level != check.MUST {
					want = check.SKIP
				}
				if got.Verdict != want {
					t.Errorf("%s: %s (%s) for a program that never sent a step", got.ID, got.Verdict, got.Reason)
				}
			}
		}
		if !found {
			t.Errorf("%s missing from the report", c.ID)
		}
	}
}
