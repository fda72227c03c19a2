package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/harness/check"
)

// A process.crash_at line the process never writes (a typo, another log
// level, output buffered through a pipe) made S5b crash after the
// answer, and the crash-unsafe split-commit mutant PASSed S5b. A crash
// that did not land mid-request is no evidence: S5b is ERROR naming
// crash_at and the line it waited for; with the line the process does
// write, the same mutant FAILs.
func TestCrashAtLineNeverWrittenIsNoEvidence(t *testing.T) {
	long(t)
	t.Parallel()
	example, err := os.ReadFile(processExample)
	if err != nil {
		t.Fatal(err)
	}
	const written = `crash_at: 'work key="{{.Key}}"'`
	if !strings.Contains(string(example), written) {
		t.Fatalf("%s has no line %s", processExample, written)
	}
	for _, c := range []struct {
		name, crashAt string
		want          check.Status
		code          int
	}{
		{"a line never written", `crash_at: 'working key="{{.Key}}"'`, check.ERROR, 2},
		{"the line written", written, check.FAIL, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(t.TempDir(), "target.yaml")
			if err := os.WriteFile(file, []byte(strings.Replace(string(example), written, c.crashAt, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			r := runEnv(t, []string{"IDEMSPEC_MUTANT=split-commit"}, "--target", file, "--report-dir", dir, "--label-filter", "S5b")
			s5b, reason := check.Status("no verdict"), ""
			for _, ch := range r.report.Checks {
				if ch.ID == "S5b" {
					s5b, reason = ch.Verdict, ch.Reason
				}
			}
			if s5b != c.want || r.code != c.code {
				t.Fatalf("S5b %s (%s), exit %d; want %s, exit %d\n%s%s", s5b, reason, r.code, c.want, c.code, r.stdout, r.stderr)
			}
			if c.want == check.ERROR {
				for _, want := range []string{"did not land mid-request", `process.crash_at names, "working key=`} {
					if !strings.Contains(reason, want) {
						t.Errorf("S5b's reason does not say %q: %s", want, reason)
					}
				}
			}
			if left := processesUsing(t, dir); len(left) > 0 {
				t.Errorf("processes left behind: %v", left)
			}
		})
	}
}
