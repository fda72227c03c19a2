package console

import (
	"io"
	"os"

	"github.com/mattn/go-isatty"
)

// Detect says how to show a run on w: on a terminal, live and in
// colour; anywhere else (a pipe, a file, a CI log), plain lines in the
// catalogue's order, and a line saying which check is under way every
// ProgressEvery while one runs. Colour is off when noColor is set (--no-color) or
// the NO_COLOR environment variable is not empty (no-color.org); a
// terminal that says it is dumb (TERM=dumb) gets no status line either.
func Detect(w io.Writer, noColor bool) Options {
	f, ok := w.(*os.File)
	if !ok || !isTerminal(f) || os.Getenv("TERM") == "dumb" {
		return Options{InOrder: true, ProgressEvery: ProgressEvery}
	}
	return Options{
		Live:    true,
		Color:   !noColor && os.Getenv("NO_COLOR") == "",
		Columns: func() int { return columns(f) },
	}
}

func isTerminal(f *os.File) bool {
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}
