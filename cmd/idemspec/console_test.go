//go:build unix

package main_test

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// sgr is a colour sequence; escape is any escape sequence.
var (
	sgr    = regexp.MustCompile(`\x1b\[[0-9;]*m`)
	escape = regexp.MustCompile(`\x1b\[`)
	// status is a drawing of the status line: check k of N, an ID.
	status = regexp.MustCompile(`\r\[\d+/\d+\] [A-Z]\d+[a-z]? \d+\.\ds`)
)

// onTerminal runs idemspec with a pseudo-terminal as its stdin, stdout
// and stderr, 200 columns wide, and returns all it wrote there. NO_COLOR
// and TERM come from env alone.
func onTerminal(t *testing.T, env []string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "NO_COLOR=") || strings.HasPrefix(kv, "TERM=")
	}), append([]string{"TERM=xterm"}, env...)...)
	term, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 200})
	if err != nil {
		t.Fatalf("pseudo-terminal: %v", err)
	}
	defer term.Close()
	out, err := io.ReadAll(term)
	// Linux answers EIO once the last process holding the terminal ends.
	if err != nil && !errors.Is(err, syscall.EIO) {
		t.Fatalf("reading the terminal: %v", err)
	}
	err = cmd.Wait()
	if ctx.Err() != nil {
		t.Fatalf("idemspec %v did not finish in time:\n%q", args, out)
	}
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

// TestTerminalShowsAStatusLineAndColour runs the properties, lightly and
// on a slowed fake so the search lasts a few redraws, and S1 under a
// pseudo-terminal: the status line shows the check under way and the
// search's counters, and is cleared before each finished line and at
// the end; verdicts are in colour. The seed is fixed: how long the
// search lasts is its draws' doing (the creates it sends, each held
// 50 ms), and a random seed once drew four sequences that took 60 ms,
// under one redraw; seed 2's take a second and more on any machine.
func TestTerminalShowsAStatusLineAndColour(t *testing.T) {
	out, code := onTerminal(t, nil, "run", "--target", "fake:reference?delay=50ms", "--label-filter", "S1 || property",
		"--sequences", "12", "--steps", "20", "--crashes", "0", "--seed", "2", "--report-dir", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d\n%q", code, out)
	}
	draws := status.FindAllStringIndex(out, -1)
	if len(draws) == 0 {
		t.Fatalf("no status line drawn:\n%q", out)
	}
	if !regexp.MustCompile(`\r\[\d/3\] P[12] [^\r]*MUST rules: sequence \d+ of 12, \d+ steps? · should `).MatchString(out) {
		t.Errorf("no status line with the property search's counters:\n%q", out)
	}
	// Every drawing is cleared before anything else is printed: the
	// next thing after it is another drawing or the clearing sequence.
	for _, d := range draws {
		rest := out[d[1]:]
		end := strings.Index(rest, "\x1b[K")
		if end < 0 || strings.Contains(rest[:end], "\n") {
			t.Fatalf("status line at %d does not end in erase-to-end-of-line:\n%q", d[0], out)
		}
		after := rest[end+len("\x1b[K"):]
		if !strings.HasPrefix(after, "\r[") && !strings.HasPrefix(after, "\r\x1b[2K") {
			t.Errorf("status line at %d is followed by %.40q, not cleared", d[0], after)
		}
	}
	last := draws[len(draws)-1][0]
	if summary := strings.Index(out, "19 checks: 3 pass"); summary < last {
		t.Errorf("the summary (at %d) comes before the last status line (at %d):\n%q", summary, last, out)
	}
	for _, word := range []string{"\x1b[32mPASS\x1b[0m  S1", "\x1b[32mPASS\x1b[0m  P1", "\x1b[2mSKIP\x1b[0m  K1"} {
		if !strings.Contains(out, word) {
			t.Errorf("no %q in the colour output:\n%q", word, out)
		}
	}
}

// TestNoColorOnRequest: --no-color, or a non-empty NO_COLOR, leaves the
// verdicts plain on a terminal; -q prints the summary line alone, with
// no status line either.
func TestNoColorOnRequest(t *testing.T) {
	run := []string{"run", "--target", "fake:reference", "--label-filter", "S1"}
	for _, tc := range []struct {
		name string
		env  []string
		args []string
	}{
		{"--no-color", nil, []string{"--no-color"}},
		{"NO_COLOR", []string{"NO_COLOR=1"}, nil},
		{"-q", nil, []string{"-q"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, code := onTerminal(t, tc.env, append(append(run, tc.args...), "--report-dir", t.TempDir())...)
			if code != 0 || !strings.Contains(out, "19 checks: 1 pass, 0 fail, 0 warn, 18 skip, 0 error") {
				t.Fatalf("exit %d\n%q", code, out)
			}
			if sgr.MatchString(out) {
				t.Errorf("colour on the terminal:\n%q", out)
			}
			if tc.name == "-q" {
				if out != "19 checks: 1 pass, 0 fail, 0 warn, 18 skip, 0 error\r\n" {
					t.Errorf("-q printed more than the summary line:\n%q", out)
				}
			} else if !strings.Contains(out, "\nPASS  S1 ") {
				t.Errorf("no plain PASS line for S1:\n%q", out)
			}
		})
	}
}

// TestPipedOutputInCatalogueOrder: off a terminal the lines follow the
// catalogue, whatever order the seed ran the checks in, with no escape
// sequence; the unselected checks' SKIP lines wait for nothing.
func TestPipedOutputInCatalogueOrder(t *testing.T) {
	r := idemspec(t, "run", "--target", "fake:reference", "--label-filter", "S2 || S4 || K2 || S1", "--report-dir", t.TempDir())
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if escape.MatchString(r.stdout) {
		t.Errorf("escape sequences in piped output:\n%q", r.stdout)
	}
	var ids []string
	for _, l := range strings.Split(r.stdout, "\n") {
		if f := strings.Fields(l); len(f) > 1 && isVerdict(f[0]) {
			ids = append(ids, f[1])
		}
	}
	var want []string
	for _, c := range serverChecks() {
		want = append(want, c.ID)
	}
	if !slices.Equal(ids, want) {
		t.Errorf("lines for %v, want the catalogue's order %v:\n%s", ids, want, r.stdout)
	}
}
