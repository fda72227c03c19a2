package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness/check"
)

// A program that leaves a named pipe, or a link to idemspec's own
// standard input, at IDEMSPEC_RESULT_FILE once held the run in open(2)
// until --timeout, and left the result file's directory behind. The
// file is refused at once, the verdict says why, and the directory goes.
func TestResultFileThatIsNotAFileIsRefusedAtOnce(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, make, kind string }{
		{"fifo", `mkfifo "$IDEMSPEC_RESULT_FILE"`, "a named pipe (FIFO)"},
		{"link to stdin", `ln -s /proc/self/fd/0 "$IDEMSPEC_RESULT_FILE"`, "a symbolic link"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			paths := filepath.Join(t.TempDir(), "paths")
			program := c.make + ` && echo "$IDEMSPEC_RESULT_FILE" >> ` + paths + ` && exec ` + binary + ` agent`
			const timeout = 2 * time.Minute
			r := client(t, "--cmd", program, "--label-filter", "C4", "--timeout", timeout.String())
			if r.elapsed >= timeout {
				t.Fatalf("the run took %s, its whole --timeout: the result file held it", r.elapsed)
			}
			c4 := check.SKIP
			for _, ch := range r.report.Checks {
				if ch.ID == "C4" {
					c4 = ch.Verdict
				}
			}
			if r.code != 1 || c4 != check.FAIL {
				t.Fatalf("exit %d, C4 %s; want C4 FAIL (no result read)\n%s%s", r.code, c4, r.stdout, r.stderr)
			}
			if want := "the result file IDEMSPEC_RESULT_FILE is " + c.kind + ", not read"; !strings.Contains(r.stdout, want) {
				t.Errorf("the verdict does not say %q:\n%s", want, r.stdout)
			}
			b, err := os.ReadFile(paths)
			if err != nil {
				t.Fatalf("the program did not run: %v", err)
			}
			for _, p := range strings.Fields(string(b)) {
				if _, err := os.Lstat(filepath.Dir(p)); !os.IsNotExist(err) {
					t.Errorf("the result file's directory %s is left behind (%v)", filepath.Dir(p), err)
				}
			}
		})
	}
}
