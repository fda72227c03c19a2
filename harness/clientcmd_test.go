package harness_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness"
	"github.com/idemspec/idemspec/harness/retry/state"
	"github.com/idemspec/idemspec/internal/proc/proctest"
)

// The client runner reads the contract's result (the result file, or
// the last stdout line), and kills a client that outlives its limit,
// children included.
func TestClientProcessReadsTheResult(t *testing.T) {
	cases := []struct {
		name, command   string
		state, id, prob string
		code            int
	}{
		{"result after noise", `echo starting; echo '{"state":"SUCCEEDED","resource_id":"res_1"}'`, string(state.Succeeded), "res_1", "", 0},
		{"numeric id, non-zero exit", `echo '{"state":"UNKNOWN_RESULT","resource_id":7}'; exit 1`, string(state.UnknownResult), "7", "", 1},
		{"null id", `echo '{"state":"FAILED","resource_id":null}'; echo; exit 1`, string(state.Failed), "", "", 1},
		{"not JSON", `echo done`, "", "", "not a JSON result", 0},
		{"unknown state", `echo '{"state":"OK"}'`, "", "", `state "OK"`, 0},
		{"silent", `true`, "", "", "no output", 0},
		// A result written to IDEMSPEC_RESULT_FILE wins over stdout,
		// whatever stdout ends with; a file left empty leaves the word
		// to stdout.
		{"file over a log", `echo '{"state":"FAILED"}'; printf '{\n  "state": "SUCCEEDED",\n  "resource_id": "res_file"\n}\n' > "$IDEMSPEC_RESULT_FILE"; echo 'worker: task done'`, string(state.Succeeded), "res_file", "", 0},
		{"file empty", `: > "$IDEMSPEC_RESULT_FILE"; echo '{"state":"UNKNOWN_RESULT","resource_id":"res_out"}'`, string(state.UnknownResult), "res_out", "", 0},
		{"file not JSON", `echo done > "$IDEMSPEC_RESULT_FILE"; echo '{"state":"SUCCEEDED"}'`, "", "", "the result file IDEMSPEC_RESULT_FILE is not a JSON result", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := harness.StartClient(tc.command, nil)
			if err != nil {
				t.Fatal(err)
			}
			x := p.Wait(context.Background(), 10*time.Second)
			if x.State != tc.state || x.ResourceID != tc.id || x.Code != tc.code || x.Killed != "" {
				t.Errorf("got %+v, want state %q id %q code %d", x, tc.state, tc.id, tc.code)
			}
			if !strings.Contains(x.Problem, tc.prob) || (tc.prob == "" && x.Problem != "") {
				t.Errorf("problem %q, want %q", x.Problem, tc.prob)
			}
		})
	}
}

func TestClientProcessIsKilledAtItsLimit(t *testing.T) {
	// The shell starts a child that would keep stdout open: only a kill
	// of the whole group lets Wait return.
	sleep := proctest.Sleep()
	p, err := harness.StartClient(sleep+" & "+sleep, []string{"IDEMSPEC_TEST=1"})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	x := p.Wait(context.Background(), 300*time.Millisecond)
	if x.Killed == "" || x.State != "" {
		t.Errorf("got %+v, want killed", x)
	}
	if took := time.Since(start); !proctest.Stopped(took) {
		t.Errorf("Wait took %v for a 300ms limit: it waited for the client", took)
	}
	if left := proctest.GoneSoon(sleep); len(left) > 0 {
		t.Errorf("pids %v still run %q", left, sleep)
	}
}

func TestClientEnvironmentReachesTheCommand(t *testing.T) {
	p, err := harness.StartClient(`echo "{\"state\":\"SUCCEEDED\",\"resource_id\":\"$IDEMSPEC_MARKER\"}"; echo oops >&2`, []string{"IDEMSPEC_MARKER=m-1"})
	if err != nil {
		t.Fatal(err)
	}
	x := p.Wait(context.Background(), 10*time.Second)
	if x.ResourceID != "m-1" {
		t.Errorf("resource id %q, want the marker from the environment", x.ResourceID)
	}
	if _, stderr := p.Output(100); stderr != "oops\n" {
		t.Errorf("stderr %q", stderr)
	}
}

// A client that ignores SIGTERM or double-forks out of its group is
// killed at its limit with everything it started.
func TestClientProcessLeavesNothing(t *testing.T) {
	for _, h := range proctest.Hostiles() {
		t.Run(h.Name, func(t *testing.T) {
			p, err := harness.StartClient(h.Line+"trap '' TERM; sleep 999", nil)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			x := p.Wait(context.Background(), 300*time.Millisecond)
			if took := time.Since(start); !proctest.Stopped(took) || x.Killed == "" {
				t.Errorf("Wait took %v (killed %q) for a 300ms limit", took, x.Killed)
			}
			if left := proctest.GoneSoon(h.Sleep); len(left) > 0 {
				t.Errorf("pids %v still run %q", left, h.Sleep)
			}
		})
	}
}

// An interrupt or the run's time limit ends the context of the check
// under way: Wait stops the client then, long before its own limit, and
// says why, with everything it started.
func TestClientProcessStopsWhenTheRunIsCutShort(t *testing.T) {
	t.Parallel() // it waits on kills and sleeps, not on a core
	for _, h := range proctest.Hostiles() {
		t.Run(h.Name, func(t *testing.T) {
			p, err := harness.StartClient(h.Line+"trap '' TERM; sleep 999", nil)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancelCause(context.Background())
			cancel(errors.New("Interrupted by User"))
			x := p.Wait(ctx, time.Hour)
			if !strings.Contains(x.Killed, "cut short (Interrupted by User)") {
				t.Errorf("killed %q: want the run's end named", x.Killed)
			}
			if left := proctest.GoneSoon(h.Sleep); len(left) > 0 {
				t.Errorf("pids %v still run %q", left, h.Sleep)
			}
		})
	}
}

// Clients.Stop ends every program still running, those no check waits
// for included, and no program starts after it.
func TestClientsStopEndsEveryProgram(t *testing.T) {
	t.Parallel() // it waits on kills and sleeps, not on a core
	var c harness.Clients
	var sleeps []string
	for _, h := range proctest.Hostiles() {
		if _, err := c.Start(h.Line+"sleep 999", nil); err != nil {
			t.Fatal(err)
		}
		sleeps = append(sleeps, h.Sleep)
	}
	done, err := c.Start("true", nil)
	if err != nil {
		t.Fatal(err)
	}
	<-done.Exited()
	c.Stop("interrupted")
	for _, s := range sleeps {
		if left := proctest.GoneSoon(s); len(left) > 0 {
			t.Errorf("pids %v still run %q", left, s)
		}
	}
	if _, err := c.Start("true", nil); !errors.Is(err, harness.ErrClientsStopped) {
		t.Errorf("Start after Stop: %v, want ErrClientsStopped", err)
	}
}

// The result is the last line of the whole stdout, however much the
// program logged before it.
func TestClientResultAfterMuchOutput(t *testing.T) {
	// 1.5 MiB of log lines, then the result.
	p, err := harness.StartClient(`i=0; while [ $i -lt 24576 ]; do echo "log line $i of a chatty framework, sixty-four bytes in all ......"; i=$((i+1)); done; echo '{"state":"SUCCEEDED","resource_id":"res_after_log"}'`, nil)
	if err != nil {
		t.Fatal(err)
	}
	x := p.Wait(context.Background(), 60*time.Second)
	if x.State != string(state.Succeeded) || x.ResourceID != "res_after_log" || x.Problem != "" {
		t.Errorf("got %+v, want the result printed after 1.5 MiB", x)
	}
}
