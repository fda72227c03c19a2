package reports

import (
	"fmt"
	"strings"
)

// visibleControls writes the control characters a target's text may
// hold (ESC, NUL, the rest of C0 but tab and newline, DEL and C1) as Go
// escapes, \x1b: raw, an ESC drives the terminal of whoever cats
// report.md, and NUL or a C1 byte in report.html is text nobody can
// see. The strings are the target's, so the report says what it sent.
func visibleControls(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case !isControl(r):
			b.WriteRune(r)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

func isControl(r rune) bool {
	return (r < 0x20 && r != '\t' && r != '\n') || r == 0x7f || (r >= 0x80 && r < 0xa0)
}

// showControls is the report with every string of the target's made
// visible (the walk that redacts reaches them all).
func showControls(r Report) Report { return Redact(r, visibleControls) }
