package main_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/fakes"
)

// A twin is an agent that reads only its own base URL variable (API_URL)
// and keeps its state in its working directory: `idemspec agent
// --base-url-env` with each client mutant, and the Python agent of
// examples/clients/python-agent with its one bug. These tests run each
// plainly against the reference server, through a lane that aims one
// fault at its creates, and hold it to what its contract-mode mutant
// does (the check it must fail once `idemspec client --target` judges
// it).

// twinAgent is one twin's command.
type twinAgent struct {
	name string
	argv []string
}

// The bounds the tests give every twin: far past what a loaded machine
// takes over a loopback request, since the lane's faults never wait for
// an agent's timeout (a lost answer is a closed connection).
var twinBounds = []string{"--attempt-timeout", "10s", "--deadline", "50s"}

func goTwin(bug string) twinAgent {
	argv := append([]string{binary, "agent", "--base-url-env", "API_URL"}, twinBounds...)
	if bug == "" {
		return twinAgent{name: "go/reference", argv: argv}
	}
	return twinAgent{name: "go/" + bug, argv: append(argv, "--bug", bug)}
}

func pythonTwin(t *testing.T, flags ...string) twinAgent {
	_, file, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(file), "..", "..", "examples", "clients", "python-agent", "agent.py")
	abs, err := filepath.Abs(script)
	if err != nil {
		t.Fatal(err)
	}
	name := "python/reference"
	if len(flags) > 0 {
		name = "python/" + strings.TrimPrefix(flags[0], "--")
	}
	return twinAgent{name: name, argv: append([]string{python(), abs, "--attempt-timeout", "10", "--deadline", "50"}, flags...)}
}

// twinTrial is the reference server, a lane in front of it, and the
// agent's working directory.
type twinTrial struct {
	server      *fakes.Instance
	lane        *twinLane
	dir, poison string
	env         []string
	agent       twinAgent
}

func newTwinTrial(t *testing.T, agent twinAgent, fault laneFault) *twinTrial {
	t.Helper()
	srv := startFake(t, fakes.Options{})
	lane := newTwinLane(t, srv.URL, fault)
	tr := &twinTrial{server: srv, lane: lane, dir: t.TempDir(), poison: t.TempDir(), agent: agent}
	tr.env = twinEnv(lane.URL, tr.poison)
	return tr
}

func (tr *twinTrial) run(t *testing.T) twinRun {
	t.Helper()
	return runTwin(t, tr.dir, tr.env, tr.agent.argv)
}

func (tr *twinTrial) resources(t *testing.T) int { t.Helper(); return resources(t, tr.server.URL) }

// explain is what a failed expectation shows: the agent's runs and the
// lane's log.
func (tr *twinTrial) explain(runs ...twinRun) string {
	var b strings.Builder
	for i, r := range runs {
		fmt.Fprintf(&b, "run %d: exit %d\nstdout:\n%s\nstderr:\n%s\n", i+1, r.code, r.stdout, r.stderr)
	}
	b.WriteString("lane:\n")
	for _, e := range tr.lane.exchanges() {
		b.WriteString("  " + e.method + " " + e.path + " key=" + e.key + " " + e.body + "\n")
	}
	return b.String()
}

// TestTwinsReadOnlyTheirVariableAndKeepStateInTheirDirectory runs every
// twin once with no fault, every IDEMSPEC_ variable set to somewhere
// else: it creates one resource on its API_URL with its own payload,
// keeps its state in its working directory, and a second run there
// sends nothing (the twins whose bug is to forget, once more).
func TestTwinsReadOnlyTheirVariableAndKeepStateInTheirDirectory(t *testing.T) {
	t.Parallel()
	agents := []twinAgent{goTwin(""), pythonTwin(t), pythonTwin(t, "--new-key-per-attempt")}
	for _, m := range fakes.MutantsOf(fakes.OfClient) {
		agents = append(agents, goTwin(m.Name))
	}
	forgets := []string{"go/memory-state", "python/new-key-per-attempt"}
	for _, a := range agents {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			tr := newTwinTrial(t, a, faultNone)
			first := tr.run(t)
			if first.code != 0 || first.state != "SUCCEEDED" || first.resourceID == "" || tr.resources(t) != 1 {
				t.Fatalf("want SUCCEEDED, exit 0, one resource (have %d)\n%s", tr.resources(t), tr.explain(first))
			}
			creates := tr.lane.creates()
			if len(creates) != 1 || creates[0].key == "" || strings.Contains(creates[0].body, "poison") || !strings.Contains(creates[0].body, `"amount":4200`) {
				t.Fatalf("want one create with its own key and payload\n%s", tr.explain(first))
			}
			if kept, _ := os.ReadDir(tr.poison); len(kept) > 0 {
				t.Fatalf("wrote in IDEMSPEC_STATE_DIR: %v", kept)
			}
			if kept, _ := os.ReadDir(tr.dir); len(kept) == 0 && !slices.Contains(forgets, a.name) {
				t.Fatalf("kept no state in its working directory\n%s", tr.explain(first))
			}
			second := tr.run(t)
			if slices.Contains(forgets, a.name) {
				if n := tr.resources(t); n != 2 || second.state != "SUCCEEDED" {
					t.Fatalf("a twin that forgets: want a second resource on a second run, have %d\n%s", n, tr.explain(first, second))
				}
				return
			}
			if second.code != 0 || second.state != "SUCCEEDED" || second.resourceID != first.resourceID || len(tr.lane.creates()) != 1 {
				t.Fatalf("a second run in the same directory: want SUCCEEDED with %s and no create\n%s", first.resourceID, tr.explain(first, second))
			}
		})
	}
}

// twinFaultCase is a twin under one fault, and what it must do there.
type twinFaultCase struct {
	agent twinAgent
	fault laneFault
	// killAt: kill the agent once the lane holds its first create
	// (faultHoldFirst) or once it sent this many creates, then (with a
	// held create) run it again in the same directory.
	killAt int
	check  func(t *testing.T, tr *twinTrial, runs []twinRun)
}

// TestTwinsKeepTheirMutantsDefects holds each twin to its
// contract-mode mutant under that mutant's fault, beside the reference
// twins under the same fault.
func TestTwinsKeepTheirMutantsDefects(t *testing.T) {
	t.Parallel()
	goRef, pyRef, pyNewKey := goTwin(""), pythonTwin(t), pythonTwin(t, "--new-key-per-attempt")
	var cases []twinFaultCase
	// harness/retry takes a 503 for an answer that may have applied
	// (UNKNOWN_RESULT), the Python agent for a refusal of nothing
	// (FAILED): both are right, and C3 judges neither's end state.
	for _, ref := range []struct {
		twinAgent
		after503 string
		exit503  int
	}{{goRef, "UNKNOWN_RESULT", 3}, {pyRef, "FAILED", 1}} {
		cases = append(cases,
			twinFaultCase{ref.twinAgent, faultDropFirst, 0, resendsAfterLookup},
			twinFaultCase{ref.twinAgent, faultDropEvery, 0, endsWith("UNKNOWN_RESULT", 3, 3)},
			twinFaultCase{ref.twinAgent, faultAlways503, 0, endsWith(ref.after503, ref.exit503, 3)},
			twinFaultCase{ref.twinAgent, faultAlways422, 0, endsWith("FAILED", 1, 1)},
			twinFaultCase{ref.twinAgent, faultLoseFirst, 0, endsWith("SUCCEEDED", 0, 1)},
			twinFaultCase{ref.twinAgent, faultHoldFirst, 1, resumesByKey},
		)
	}
	cases = append(cases,
		twinFaultCase{goTwin("new-key-per-retry"), faultDropFirst, 0, resendsWithNewKey},              // C1
		twinFaultCase{pyNewKey, faultDropFirst, 0, resendsWithNewKey},                                 // C1
		twinFaultCase{goTwin("new-payload-per-retry"), faultDropFirst, 0, resendsOtherBytes},          // C2
		twinFaultCase{goTwin("unbounded-retry"), faultAlways503, 5, nil},                              // C3: past its 3 attempts, killed
		twinFaultCase{goTwin("failed-on-timeout"), faultLoseFirst, 0, endsWith("FAILED", 1, 1)},       // C4, with the resource made
		twinFaultCase{goTwin("no-reconcile"), faultDropFirst, 0, resendsWithoutLookup},                // C5
		twinFaultCase{goTwin("memory-state"), faultHoldFirst, 1, duplicatesOnRestart},                 // C6
		twinFaultCase{pyNewKey, faultHoldFirst, 1, duplicatesOnRestart},                               // C6
		twinFaultCase{goTwin("retry-final-4xx"), faultAlways422, 0, endsWith("UNKNOWN_RESULT", 3, 3)}, // C7: each 422 read as a 503
	)
	names := []string{"none", "drop-first", "drop-every", "lose-first", "hold-first", "always-503", "always-422"}
	for _, c := range cases {
		t.Run(c.agent.name+"/"+names[c.fault], func(t *testing.T) {
			t.Parallel()
			tr := newTwinTrial(t, c.agent, c.fault)
			var runs []twinRun
			switch {
			case c.fault == faultHoldFirst:
				runs = append(runs, killTwinWhen(t, tr.dir, tr.env, c.agent.argv, tr.lane.held, "the first create reached the server"))
				tr.lane.hangUpHeld()
				runs = append(runs, tr.run(t))
			case c.killAt > 0:
				runs = append(runs, killTwinWhen(t, tr.dir, tr.env, c.agent.argv, tr.lane.after(c.killAt), "the creates past its budget"))
			default:
				runs = append(runs, tr.run(t))
			}
			if c.check != nil {
				c.check(t, tr, runs)
			}
		})
	}
}

// endsWith: the run ends in state with its exit code, after this many
// creates.
func endsWith(state string, code, creates int) func(*testing.T, *twinTrial, []twinRun) {
	return func(t *testing.T, tr *twinTrial, runs []twinRun) {
		t.Helper()
		if r := runs[0]; r.state != state || r.code != code || len(tr.lane.creates()) != creates {
			t.Fatalf("want %s, exit %d, after %d creates\n%s", state, code, creates, tr.explain(runs...))
		}
	}
}

// resendsAfterLookup: the reference after a create dropped unrun looks
// its key up (unknown) and resends it with the same key and bytes.
func resendsAfterLookup(t *testing.T, tr *twinTrial, runs []twinRun) {
	t.Helper()
	c := tr.lane.creates()
	if runs[0].state != "SUCCEEDED" || len(c) != 2 || c[0].key != c[1].key || c[0].body != c[1].body || !lookedUpBeforeResend(tr, c[0].key) || tr.resources(t) != 1 {
		t.Fatalf("want a look-up, then one resend with the same key and bytes, and SUCCEEDED\n%s", tr.explain(runs...))
	}
}

func resendsWithNewKey(t *testing.T, tr *twinTrial, runs []twinRun) {
	t.Helper()
	if c := tr.lane.creates(); len(c) < 2 || c[0].key == c[1].key {
		t.Fatalf("want a resend with a new key (C1)\n%s", tr.explain(runs...))
	}
}

func resendsOtherBytes(t *testing.T, tr *twinTrial, runs []twinRun) {
	t.Helper()
	if c := tr.lane.creates(); len(c) < 2 || c[0].key != c[1].key || c[0].body == c[1].body {
		t.Fatalf("want a resend with the same key and other bytes (C2)\n%s", tr.explain(runs...))
	}
}

func resendsWithoutLookup(t *testing.T, tr *twinTrial, runs []twinRun) {
	t.Helper()
	if c := tr.lane.creates(); len(c) < 2 || c[0].key != c[1].key || lookedUpBeforeResend(tr, c[0].key) {
		t.Fatalf("want a resend with the same key and no look-up first (C5)\n%s", tr.explain(runs...))
	}
}

// resumesByKey: killed with its create held, the restarted run finds the
// resource by the key it kept, and makes no second one.
func resumesByKey(t *testing.T, tr *twinTrial, runs []twinRun) {
	t.Helper()
	c := tr.lane.creates()
	if runs[1].state != "SUCCEEDED" || tr.resources(t) != 1 || len(c) == 0 || !lookedUpBeforeResend(tr, c[0].key) {
		t.Fatalf("want the restarted run to look its key up and end SUCCEEDED with one resource\n%s", tr.explain(runs...))
	}
	for _, e := range c[1:] {
		if e.key != c[0].key {
			t.Fatalf("the restarted run sent another key\n%s", tr.explain(runs...))
		}
	}
}

// duplicatesOnRestart: the restarted run knows nothing of the held
// create and makes a second resource (C6).
func duplicatesOnRestart(t *testing.T, tr *twinTrial, runs []twinRun) {
	t.Helper()
	if n := tr.resources(t); n != 2 {
		t.Fatalf("want a second resource after the restart (C6), have %d\n%s", n, tr.explain(runs...))
	}
}

// lookedUpBeforeResend says whether the lane saw key looked up after
// its first create.
func lookedUpBeforeResend(tr *twinTrial, key string) bool {
	sent := false
	for _, e := range tr.lane.exchanges() {
		switch {
		case e.method == http.MethodPost && e.key == key:
			sent = true
		case sent && e.method == http.MethodGet && e.path == "/idempotency-keys/"+key:
			return true
		}
	}
	return false
}

// TestTwinBadInputExitsTwo: a twin with its variable unset, or flags of
// the wrong mode, says so and exits 2.
func TestTwinBadInputExitsTwo(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"agent", "--base-url-env", "TWIN_UNSET_API_URL"}, "TWIN_UNSET_API_URL is not set: it holds the API's base URL"},
		{[]string{"agent", "--mcp", "--mcp-command-env", "TWIN_UNSET_MCP"}, "TWIN_UNSET_MCP is not set: it holds the command that starts the MCP server"},
		{[]string{"agent", "--base-url-env", "PATH"}, `want the API's base URL, http:// or https://`},
		{[]string{"agent", "--attempts", "2"}, "--attempts is an unmodified agent's"},
		{[]string{"agent", "--mcp", "--base-url-env", "API_URL"}, "with --mcp, name --mcp-command-env or --mcp-url-env"},
		{[]string{"agent", "--mcp-url-env", "MCP_URL"}, "--mcp-command-env and --mcp-url-env need --mcp"},
		{[]string{"agent", "--mcp", "--mcp-url-env", "A", "--mcp-command-env", "B"}, "name one of them"},
	} {
		r := idemspec(t, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Contains(r.stderr, "goroutine") {
			t.Errorf("idemspec %v: exit %d, stderr %q, want 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
	// `idemspec client --deadline`'s variable reaches the reference
	// client it runs, and is not the client's to read.
	r := idemspecEnv(t, []string{"IDEMSPEC_DEADLINE=3s", "IDEMSPEC_ATTEMPT_TIMEOUT=1s"}, "agent")
	if r.code != 2 || !strings.Contains(r.stderr, "not run by `idemspec client`") {
		t.Errorf("idemspec agent with IDEMSPEC_DEADLINE: exit %d, stderr %q, want the contract's variables missing", r.code, r.stderr)
	}
}
