package reports

import "github.com/idemspec/idemspec/internal/console"

// showControls is v (a report, a comparison) with every string in it
// written through console.Text: a control character (ESC, NUL, the
// rest of C0 but tab and newline, DEL and C1) becomes a visible escape,
// \x1b, in report.md, report.html, compare.md and compare.html. Raw, an
// ESC drives the terminal of whoever cats report.md, and NUL or a C1
// byte in report.html is text nobody can see. Every string is, the
// catalogue's ids, titles and clauses and the verdicts too: a report
// re-rendered, compared or merged is read from a file anyone could have
// written.
func showControls[T any](v T) T { return rewriteAll(v, console.Text) }
