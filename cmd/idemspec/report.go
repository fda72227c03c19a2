package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/idemspec/idemspec/reports"
)

func init() {
	commands["report"] = command{
		summary: "re-render a JSON report, or compare several (--compare a.json b.json ...)",
		run:     runReport,
	}
}

const reportUsage = `Usage:
  idemspec report [--out DIR] REPORT.json
      re-render one JSON report as report.md, report.html and junit.xml
      (DIR defaults to the report's own directory)
  idemspec report --compare [--out DIR] A.json B.json ...
      a matrix of checks (rows) across runs (columns): DIR/compare.md and
      DIR/compare.html (DIR defaults to idemspec-compare)
`

func runReport(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	compare := fs.Bool("compare", false, "compare several JSON reports in a matrix")
	out := fs.String("out", "", "output directory")
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, reportUsage, "\nFlags:\n")
		fs.PrintDefaults()
	}
	paths, err := parseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	} else if err != nil {
		return exitError
	}
	switch {
	case len(paths) == 0:
		fs.Usage()
		return exitError
	case !*compare && len(paths) > 1:
		return fail(stderr, "report: one JSON report at a time; to compare several, add --compare")
	}
	var runs []reports.Report
	for _, p := range paths {
		r, err := reports.ReadJSON(p)
		if err != nil {
			return fail(stderr, err)
		}
		runs = append(runs, r)
	}
	var written []string
	if *compare {
		written, err = reports.WriteComparison(or(*out, "idemspec-compare"), reports.Compare(runs))
	} else {
		written, err = reports.WriteAll(or(*out, filepath.Dir(paths[0])), runs[0], "report.json")
	}
	if err != nil {
		return fail(stderr, err)
	}
	fmt.Fprintf(stdout, "reports: %s\n", strings.Join(written, ", "))
	return exitOK
}

// parseInterleaved parses flags wherever they stand among the file
// arguments (`report a.json --out x b.json`), which the flag package
// alone stops at the first file.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return files, nil
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func or(v, fallback string) string {
	if v == "" {
		return fallback
	}
	return v
}
