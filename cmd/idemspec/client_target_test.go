package main_test

import (
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/reports"
)

// `idemspec client --target`: an unmodified program, which reads only
// its own base URL variable and keeps its state in its working
// directory, judged against the reference server run as a managed
// process through examples/targets/process-reference.yaml.

// unmodifiedAgent is the command of testdata/unmodified_agent.py in a
// mode.
func unmodifiedAgent(mode string) string {
	_, file, _, _ := runtime.Caller(0)
	return python() + " " + filepath.Join(filepath.Dir(file), "testdata", "unmodified_agent.py") + " " + mode
}

func processReference() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "examples", "targets", "process-reference.yaml")
}

// clientTarget runs client mode against process-reference.yaml.
func clientTarget(t *testing.T, mode string, args ...string) (result, map[string]reports.CheckResult) {
	t.Helper()
	r := client(t, append([]string{"--target", processReference(), "--cmd", unmodifiedAgent(mode), "--slack", pythonSlack.String()}, args...)...)
	verdicts := map[string]reports.CheckResult{}
	for _, c := range r.report.Checks {
		verdicts[c.ID] = c
	}
	return r, verdicts
}

func TestUnmodifiedProgramAgainstATargetFile(t *testing.T) {
	long(t)
	t.Parallel()
	r, verdicts := clientTarget(t, "good", "--base-url-env", "API_URL", "--exit-codes", "0=SUCCEEDED,3=UNKNOWN_RESULT,1=FAILED")
	for _, id := range []string{"C1", "C2", "C3", "C4", "C5", "C6", "C7"} {
		if v := verdicts[id]; v.Verdict != check.PASS {
			t.Errorf("%s: %s %s", id, v.Verdict, v.Reason)
		}
	}
	if r.code != 0 {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// The header says what the counts rest on: the program's creates
	// carry no marker, so the wire, not the list endpoint alone.
	if e := r.report.Target.OracleEvidence; !strings.HasPrefix(e, "resources counted from the wire") || !strings.Contains(r.stdout, e) {
		t.Errorf("oracle evidence %q: want it to start with what the counts rest on, in the header too\n%s", e, r.stdout)
	}
	// The fault lines name who answered, as the exchange tables do.
	for id, want := range map[string]string{"C3": "every create answered 503 by idemspec (not forwarded to the API)", "C7": "every create refused 422 by idemspec (not forwarded to the API)"} {
		if faults := verdicts[id].Evidence.Faults; !slices.ContainsFunc(faults, func(f string) bool { return strings.HasPrefix(f, want) }) {
			t.Errorf("%s's faults %q, want %q", id, faults, want)
		}
	}
}

// The twin that draws a new key per attempt is caught by the keys (C1)
// and by the resources after a kill (C6), counted from the wire.
func TestUnmodifiedProgramWithAFreshKeyPerAttempt(t *testing.T) {
	long(t)
	t.Parallel()
	r, verdicts := clientTarget(t, "fresh-key", "--base-url-env", "API_URL", "--label-filter", "C1 || C2 || C6")
	want := map[string]check.Status{"C1": check.FAIL, "C2": check.PASS, "C6": check.FAIL}
	for id, status := range want {
		if v := verdicts[id]; v.Verdict != status {
			t.Errorf("%s: %s (%s), want %s", id, v.Verdict, v.Reason, status)
		}
	}
	if r.code == 0 {
		t.Errorf("exit 0 for a program that duplicates")
	}
	// The oracle, reading the marker field of the program's own
	// payload, sees the duplicate too.
	if notes := strings.Join(verdicts["C6"].Evidence.Notes, "\n"); !strings.Contains(notes, "resources counted by the oracle: 2 new") {
		t.Errorf("C6's notes do not show the oracle's count:\n%s", notes)
	}
}

// Nothing to judge is an ERROR that says why, never a FAIL: a program
// that never reads the variable it is handed, one that calls nothing
// the file describes.
func TestUnmodifiedProgramWithNothingToJudge(t *testing.T) {
	long(t)
	t.Parallel()
	for _, c := range []struct {
		name, mode, env, says string
	}{
		{"unread variable", "good", "ORB_BASE_URL", "no request reached idemspec during the baseline run"},
		{"no operation of the file", "no-create", "API_URL", "called no create " + processReference() + " describes; it sent GET /healthz"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, verdicts := clientTarget(t, c.mode, "--base-url-env", c.env, "--label-filter", "C1")
			if v := verdicts["C1"]; v.Verdict != check.ERROR || !strings.Contains(v.Reason, c.says) {
				t.Errorf("C1: %s %q, want ERROR saying %q", v.Verdict, v.Reason, c.says)
			}
		})
	}
}

// C4 reads the end state from a result the program writes, else from
// --exit-codes; with neither it has nothing to judge, and says so.
func TestUnmodifiedProgramWithoutAResultSkipsC4(t *testing.T) {
	long(t)
	t.Parallel()
	_, verdicts := clientTarget(t, "good", "--base-url-env", "API_URL", "--label-filter", "C4")
	if v := verdicts["C4"]; v.Verdict != check.SKIP || !strings.Contains(v.Reason, "--exit-codes maps no state to its exit code 0") {
		t.Errorf("C4: %s %q", v.Verdict, v.Reason)
	}
}

func TestClientTargetFlags(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"--cmd", "true", "--base-url-env", "API_URL"}, "--base-url-env needs --target"},
		{[]string{"--cmd", "true", "--target", processReference()}, "--target needs --base-url-env NAME"},
		{[]string{"--cmd", "true", "--target", processReference(), "--base-url-env", "1URL"}, `"1URL" is not a variable name`},
		{[]string{"--cmd", "true", "--target", processReference(), "--base-url-env", "U", "--exit-codes", "0=DONE"}, `state "DONE" is not SUCCEEDED`},
		{[]string{"--cmd", "true", "--target", processReference(), "--base-url-env", "U", "--exit-codes", "x=FAILED"}, `"x=FAILED" is not CODE=STATE`},
		{[]string{"--cmd", "true", "--target", processReference(), "--base-url-env", "U", "--key-in", "body"}, "--key-in does not go with --target"},
	} {
		r := idemspec(t, append([]string{"client"}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.says) {
			t.Errorf("idemspec client %v: exit %d, stderr %q; want 2 saying %q", c.args, r.code, r.stderr, c.says)
		}
	}
}

// A job that calls two operations of the file is judged per operation:
// each spec's faults, and C6's kill, aim at the first create of its own
// operation, and C6 also counts the job's other calls after the restart.
func TestUnmodifiedJobJudgedPerOperation(t *testing.T) {
	long(t)
	t.Parallel()
	_, file, _, _ := runtime.Caller(0)
	twoOps := filepath.Join(filepath.Dir(file), "..", "..", "examples", "targets", "action-with-setup.yaml")
	for _, c := range []struct {
		mode string
		want check.Status
		says map[string]string
	}{
		{"job", check.PASS, nil},
		{"job-fresh", check.FAIL, map[string]string{"append-event C6": "operation create: resources after a kill aimed at operation append-event"}},
	} {
		t.Run(c.mode, func(t *testing.T) {
			r := client(t, "--target", twoOps, "--cmd", unmodifiedAgent(c.mode), "--slack", pythonSlack.String(), "--base-url-env", "API_URL", "--label-filter", "C1 || C6")
			judged := 0
			for _, v := range r.report.Checks {
				if v.ID != "C1" && v.ID != "C6" {
					continue
				}
				judged++
				if v.Verdict != c.want || !strings.Contains(v.Reason, c.says[v.Operation+" "+v.ID]) {
					t.Errorf("%s [%s]: %s %q, want %s", v.ID, v.Operation, v.Verdict, v.Reason, c.want)
				}
			}
			if judged != 4 {
				t.Errorf("%d verdicts of C1 and C6, want one per operation (4)\n%s", judged, r.stdout)
			}
		})
	}
}

// With --workflow the job's calls are its steps: W1, W2 and W5 hold,
// lose and kill at each operation through the interposer.
func TestUnmodifiedJobWorkflowChecks(t *testing.T) {
	long(t)
	t.Parallel()
	_, file, _, _ := runtime.Caller(0)
	twoOps := filepath.Join(filepath.Dir(file), "..", "..", "examples", "targets", "action-with-setup.yaml")
	for mode, want := range map[string]check.Status{"job": check.PASS, "job-fresh": check.FAIL} {
		t.Run(mode, func(t *testing.T) {
			r := client(t, "--workflow", "--target", twoOps, "--cmd", unmodifiedAgent(mode), "--slack", pythonSlack.String(), "--base-url-env", "API_URL", "--label-filter", "W1 || W2 || W5")
			judged := 0
			for _, v := range r.report.Checks {
				if v.ID != "W1" && v.ID != "W2" && v.ID != "W5" {
					continue
				}
				judged++
				if v.Verdict != want {
					t.Errorf("%s [%s]: %s %q, want %s", v.ID, v.Operation, v.Verdict, v.Reason, want)
				}
			}
			if judged != 6 {
				t.Errorf("%d verdicts of W1, W2 and W5, want one per operation (6)\n%s", judged, r.stdout)
			}
		})
	}
}
