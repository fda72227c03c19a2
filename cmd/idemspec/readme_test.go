package main_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/reports"
)

// readersFiles are the files README.md's walk-through has the reader
// write (their API's target file, their OpenAPI document): a command
// naming one is theirs to run.
var readersFiles = []string{"my-api.yaml", "openapi.yaml"}

// Every idemspec command README.md shows runs as written from the root
// of the repository and ends as the comment beside it says: "S4, P1
// FAIL" those checks FAIL (exit 1), "K5, P2 WARN: exit 0" they WARN
// (exit 0), "C1-C7" or "W1-W5" every check of the kind passes (exit 0).
// Only --report-dir is added, so that the runs leave the checkout clean,
// and to a client command the slack the client matrix gives Python.
func TestReadmeCommandsRunAsWritten(t *testing.T) {
	long(t)
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("the README's client examples run python3, which is not on PATH")
	}
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	commands := readmeCommands(t, filepath.Join(root, "README.md"))
	ran := 0
	for _, c := range commands {
		if slices.ContainsFunc(c.args, func(a string) bool { return slices.Contains(readersFiles, a) }) {
			continue
		}
		ran++
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
			defer cancel()
			args := append(slices.Clone(c.args), "--report-dir", dir)
			if args[0] == "client" {
				// The client matrix's slack for an interpreter: under a
				// second test suite's load Python's start-up alone took
				// longer than the default second past the deadline, and
				// the kill became W4's FAIL and C2's ERROR.
				args = append(args, "--slack", pythonSlack.String())
			}
			cmd := exec.CommandContext(ctx, binary, args...)
			cmd.Dir = root
			out, err := cmd.CombinedOutput()
			code := 0
			if exit, ok := err.(*exec.ExitError); ok {
				code = exit.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			want := c.expect()
			if code != want.code {
				t.Errorf("exit %d, the README says %d (%q)\n%s", code, want.code, c.comment, out)
			}
			r, err := reports.ReadJSON(filepath.Join(dir, "report.json"))
			if err != nil {
				t.Fatalf("no report: %v\n%s", err, out)
			}
			seen := map[string]bool{}
			for _, v := range r.Checks {
				seen[v.ID] = true
				if status, ok := want.checks[v.ID]; ok && v.Verdict != status {
					t.Errorf("%s: %s (%s), the README says %s", v.ID, v.Verdict, v.Reason, status)
				}
				if want.allPass && v.Verdict != check.PASS {
					t.Errorf("%s: %s (%s), the README says every check passes", v.ID, v.Verdict, v.Reason)
				}
			}
			for id := range want.checks {
				if !seen[id] {
					t.Errorf("the report has no %s, which the README names", id)
				}
			}
		})
	}
	if ran < 5 {
		t.Errorf("ran %d of the README's %d idemspec commands: did the extraction break?", ran, len(commands))
	}
}

// readmeCommand is one idemspec command of README.md, its arguments
// after the program's name and the comment beside it.
type readmeCommand struct {
	args    []string
	comment string
}

// outcome is how a command ends as its comment says.
type outcome struct {
	code    int
	checks  map[string]check.Status
	allPass bool
}

var (
	namedVerdict = regexp.MustCompile(`^([A-Z][0-9a-z]*(?:, [A-Z][0-9a-z]*)*) (FAIL|WARN)\b`)
	checkSpan    = regexp.MustCompile(`\b[CW]1-[CW][0-9]\b`)
)

func (c readmeCommand) expect() outcome {
	o := outcome{checks: map[string]check.Status{}}
	if m := namedVerdict.FindStringSubmatch(c.comment); m != nil {
		for _, id := range strings.Split(m[1], ", ") {
			o.checks[id] = check.Status(m[2])
		}
		if m[2] == string(check.FAIL) {
			o.code = 1
		}
		return o
	}
	o.allPass = checkSpan.MatchString(c.comment)
	return o
}

// readmeCommands are the idemspec commands in the sh blocks of path,
// continuation lines joined.
func readmeCommands(t *testing.T, path string) []readmeCommand {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []readmeCommand
	inBlock, line := false, ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		text := sc.Text()
		switch {
		case strings.HasPrefix(text, "```"):
			inBlock = text == "```sh"
			continue
		case !inBlock:
			continue
		}
		if body, more := strings.CutSuffix(strings.TrimRight(text, " "), `\`); more {
			line += body + " "
			continue
		}
		line += text
		words, comment, _ := shellWords(line)
		line = ""
		if len(words) > 1 && (words[0] == "idemspec" || words[0] == "./bin/idemspec") {
			out = append(out, readmeCommand{args: words[1:], comment: comment})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// shellWords splits a command line as sh would for the lines these
// tests read (the README's commands, a property's replay line): spaces,
// single and double quotes, a backslash outside quotes escaping the next
// character; an unquoted # at a word's start begins the comment,
// returned apart. unclosed says a quote was left open.
func shellWords(line string) (words []string, comment string, unclosed bool) {
	var w strings.Builder
	inWord := false
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			w.WriteByte(c)
		case c == '"' || c == '\'':
			quote, inWord = c, true
		case c == '\\' && i+1 < len(line):
			i++
			w.WriteByte(line[i])
			inWord = true
		case c == '#' && !inWord:
			comment = strings.TrimSpace(line[i+1:])
			i = len(line)
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, comment, quote != 0
}
