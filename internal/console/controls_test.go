package console_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/internal/console"
)

func TestTextAndLineShowControls(t *testing.T) {
	for _, c := range []struct{ in, text, line string }{
		{"plain", "plain", "plain"},
		{"a\x1b[2Jb\x07", `a\x1b[2Jb\x07`, `a\x1b[2Jb\x07`},
		{"two\nlines\tand tab", "two\nlines\tand tab", `two\x0alines\x09and tab`},
		{"c1\u009b31m del\x7f", `c1\u009b31m del\x7f`, `c1\u009b31m del\x7f`},
		{"sep\u2028rtl\u202e é", "sep\u2028rtl\u202e é", `sep\u2028rtl\u202e é`},
		{"bad\xffbyte", "bad\xffbyte", `bad\xffbyte`},
	} {
		if got := console.Text(c.in); got != c.text {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.text)
		}
		if got := console.Line(c.in); got != c.line {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.line)
		}
	}
}

// A check's reason and the status line's detail come from the target:
// the display shows their control characters, never sends them.
func TestDisplayShowsControls(t *testing.T) {
	var b bytes.Buffer
	d := console.New(&b, console.Options{})
	c := check.Entry{ID: "S1", Title: "should \x1b]0;PWN\x07"}
	d.Begin([]check.Entry{c}, func(string) bool { return true })
	d.Start(c)
	d.Searching("tried \x1b[2J")
	d.Finish("S1", check.FAIL, "S1 reason \x1b[2J\n  second line")
	d.Close()
	out := b.String()
	if strings.ContainsAny(out, "\x1b\x07") || !strings.Contains(out, `reason \x1b[2J`+"\n  second line") {
		t.Errorf("the display wrote %q", out)
	}
}
