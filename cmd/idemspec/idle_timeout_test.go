package main_test

import (
	"fmt"
	"testing"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/scenarios"
)

// TestIdleTimeoutOnProcessTarget runs the whole suite, the properties
// included, against `idemspec serve --idle-timeout 1s` as a managed
// process: a server that closes a connection idle for 1 s and cuts a
// request slower than that, as Python's http.server with a handler
// timeout does. The reference fails and warns nothing, S4, P1, K2 and
// S5b pass (K5 may SKIP: its duplicates may all be served one after
// another), and
// check-then-insert is still caught, S4 among its checks. The same
// fakes run in process in the detection matrices (fake:...?idle_timeout=1s).
// Before idemspec left no connection idle past the server's patience,
// S5b's retry after a 1 s Retry-After met a connection the server was
// closing (ERROR), and the property search's malformed keys did too
// (P1 FAIL: "the connection was dropped").
func TestIdleTimeoutOnProcessTarget(t *testing.T) {
	long(t)
	t.Parallel()
	for _, name := range []string{fakes.Reference, "check-then-insert"} {
		m := serverMutant(t, name)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			runs := matrixRuns(t, 2)
			for i := 0; i < runs; i++ {
				which := fmt.Sprintf("run %d of %d", i+1, runs)
				dir := t.TempDir()
				r := runEnv(t, []string{"IDEMSPEC_MUTANT=" + name, "IDEMSPEC_IDLE_TIMEOUT=1s"}, "--target", processExample, "--report-dir", dir)
				expectDetection(t, m, r, which)
				if name == fakes.Reference {
					// What the idle timeout used to break must have run,
					// and passed; the others are held by expectDetection.
					for _, id := range []string{scenarios.S4.ID, scenarios.P1.ID, scenarios.K2.ID, scenarios.S5b.ID} {
						if c := checkResult(t, r, id); c.Verdict != check.PASS {
							t.Fatalf("%s: %s %s: %s", which, id, c.Verdict, c.Reason)
						}
					}
				}
				if want := wantExit(t, m); r.code != want {
					t.Fatalf("%s: exit %d, want %d\n%s%s", which, r.code, want, r.stdout, r.stderr)
				}
				if left := processesUsing(t, dir); len(left) > 0 {
					t.Fatalf("%s: processes left behind: %v", which, left)
				}
			}
		})
	}
}
