package reports_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/reports"
)

// Raw control bytes a target answered (ESC, NUL, the rest of C0, DEL,
// C1) never reach report.md or report.html: they are written as
// visible escapes: copied raw, an ESC[2J would clear the terminal of
// whoever cats report.md.
func TestControlBytesAreShownNotSent(t *testing.T) {
	r := syntheticReport()
	const evil = "\x1b[2Jgone\x00nul\x07bell\x7fdel\u009bcsi\rcr"
	r.Target.Name = "api" + evil
	x := r.Checks[0].Evidence.History[0]
	x.Body, x.Error = `{"id":"`+evil+`"}`, "oops"+evil
	r.Checks[0].Evidence.History[0] = x
	for _, w := range []struct {
		name  string
		write func(*bytes.Buffer, reports.Report) error
	}{
		{"report.md", func(b *bytes.Buffer, r reports.Report) error { return reports.WriteMarkdown(b, r) }},
		{"report.html", func(b *bytes.Buffer, r reports.Report) error { return reports.WriteHTML(b, r) }},
	} {
		var b bytes.Buffer
		if err := w.write(&b, r); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, c := range out {
			if (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f || (c >= 0x80 && c < 0xa0) {
				t.Errorf("%s holds the control character %U", w.name, c)
				break
			}
		}
		// Markdown escapes the backslash in turn (\\x1b renders \x1b).
		for _, shown := range []string{`x1b`, `x00nul`, `x07bell`, `x7fdel`, `u009bcsi`, `x0dcr`} {
			if !strings.Contains(out, shown) {
				t.Errorf("%s does not show %s", w.name, shown)
			}
		}
	}
}
