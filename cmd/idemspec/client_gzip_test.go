package main_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/reports"
)

// A correct program whose API gzips its answers (it asks with its own
// Accept-Encoding) passes C6: idemspec reads the ids from the decoded
// answers, so the replay after the restart is the one resource it is,
// and the program decodes the bytes the API sent.
func TestUnmodifiedProgramAgainstAGzipAPI(t *testing.T) {
	long(t)
	t.Parallel()
	requireTool(t, "python3", "python3")
	dir := t.TempDir()
	r := idemspecEnv(t, []string{"PYTHON=" + python()}, "client", "--report-dir", dir,
		"--target", filepath.Join("testdata", "pyserver", "target-gzip.yaml"),
		"--cmd", "env ACCEPT_GZIP=1 "+unmodifiedAgent("good"), "--slack", pythonSlack.String(),
		"--base-url-env", "API_URL", "--label-filter", "C6")
	rep, err := reports.ReadJSON(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatalf("exit %d: %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	for _, c := range rep.Checks {
		if c.ID != "C6" {
			continue
		}
		if c.Verdict != check.PASS {
			t.Errorf("C6: %s %s\n%s", c.Verdict, c.Reason, strings.Join(c.Evidence.Notes, "\n"))
		}
		return
	}
	t.Errorf("no C6 in the report (exit %d)\n%s%s", r.code, r.stdout, r.stderr)
}
