package reports

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/idemspec/idemspec/internal/outfile"
)

// Writer renders a report in one format.
type Writer struct {
	File   string // the file name in the report directory
	Render func(io.Writer, Report) error
}

// Writers are the formats `idemspec run` writes.
var Writers = []Writer{
	{File: "report.json", Render: WriteJSON},
	{File: "junit.xml", Render: WriteJUnit},
	{File: "report.md", Render: WriteMarkdown},
	{File: "report.html", Render: WriteHTML},
	{File: "report.sarif", Render: WriteSARIF},
}

// WriteAll renders every format into dir and returns the paths written.
// Formats named in except are left alone (a re-render keeps its JSON).
func WriteAll(dir string, r Report, except ...string) ([]string, error) {
	var files []File
	for _, w := range Writers {
		if !slices.Contains(except, w.File) {
			files = append(files, File{Name: w.File, Render: func(out io.Writer) error { return w.Render(out, r) }})
		}
	}
	return WriteFiles(dir, files...)
}

// WriteComparison writes the matrix as compare.md and compare.html.
func WriteComparison(dir string, m Matrix) ([]string, error) {
	return WriteFiles(dir,
		File{Name: "compare.md", Render: func(w io.Writer) error { return WriteCompareMarkdown(w, m) }},
		File{Name: "compare.html", Render: func(w io.Writer) error { return WriteCompareHTML(w, m) }},
	)
}

// File is one file of a report directory.
type File struct {
	Name   string
	Render func(io.Writer) error
}

// WriteFiles writes each file atomically into dir, creating dir, and
// returns the paths written.
func WriteFiles(dir string, files ...File) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("report directory: %w", err)
	}
	var paths []string
	for _, f := range files {
		p := filepath.Join(dir, f.Name)
		if err := WriteFileAtomic(p, f.Render); err != nil {
			return paths, fmt.Errorf("write %s: %w", p, err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// WriteFileAtomic renders into a temporary file beside path and renames
// it over path, so a reader never sees half a report. The file's mode is
// 0644 less the umask, and a symlink at path is replaced, not followed.
func WriteFileAtomic(path string, render func(io.Writer) error) error {
	return outfile.WriteAtomic(path, render)
}
