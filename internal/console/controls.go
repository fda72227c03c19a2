package console

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Text is s with its control characters (ESC, NUL, the rest of C0 but
// tab and newline, DEL and C1) written as Go escapes, \x1b and \u009b,
// for text of several lines: what a server, a target or a forged
// report says reaches a terminal (or a report someone cats) as text,
// never as an escape sequence that clears the screen or sets the
// window's title, and a NUL or a C1 byte stays visible.
func Text(s string) string { return escaped(s, isControl, false) }

// Line is s on one line: Text, and line breaks, tabs and every other
// character that is not printable (U+2028, a bidirectional override,
// a byte that is not UTF-8) escaped too, so a name with a newline
// cannot split a table or forge the line after it.
func Line(s string) string { return escaped(s, notPrintable, true) }

func isControl(r rune) bool {
	return (r < 0x20 && r != '\t' && r != '\n') || r == 0x7f || (r >= 0x80 && r < 0xa0)
}

func notPrintable(r rune) bool { return r != ' ' && !strconv.IsPrint(r) }

// escaped writes each rune of s that escape says as its Go escape, and
// with badBytes each byte that is not UTF-8 as \xNN.
func escaped(s string, escape func(rune) bool, badBytes bool) string {
	if !strings.ContainsFunc(s, escape) && (!badBytes || utf8.ValidString(s)) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1 && badBytes:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !escape(r):
			b.WriteString(s[i : i+n])
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		i += n
	}
	return b.String()
}
