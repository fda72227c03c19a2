package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/idemspec/idemspec/reports"
)

func init() {
	register(command{
		use:     "report REPORT.json...",
		summary: "re-render a JSON report, or compare several (--compare a.json b.json ...)",
		long:    reportUsage,
		args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return errors.New("report: name a JSON report (several with --compare)")
			}
			return nil
		},
		define: reportCommand,
	})
}

const reportUsage = `Re-render a JSON report, or compare several.

  idemspec report [--out DIR] REPORT.json
      re-render one JSON report as report.md, report.html and junit.xml
      (DIR defaults to the report's own directory)
  idemspec report --compare [--out DIR] A.json B.json ...
      a matrix of checks (rows) across runs (columns): DIR/compare.md and
      DIR/compare.html (DIR defaults to idemspec-compare)
`

func reportCommand(fs *pflag.FlagSet) body {
	compare := fs.Bool("compare", false, "compare several JSON reports in a matrix")
	out := fs.String("out", "", "output `DIR`ectory")
	return func(paths []string, stdout, stderr io.Writer) int {
		return report(paths, *compare, *out, stdout, stderr)
	}
}

func report(paths []string, compare bool, out string, stdout, stderr io.Writer) int {
	if !compare && len(paths) > 1 {
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
	var err error
	if compare {
		written, err = reports.WriteComparison(or(out, "idemspec-compare"), reports.Compare(runs))
	} else {
		written, err = reports.WriteAll(or(out, filepath.Dir(paths[0])), runs[0], "report.json")
	}
	if err != nil {
		return fail(stderr, err)
	}
	fmt.Fprintf(stdout, "reports: %s\n", strings.Join(written, ", "))
	return exitOK
}

func or(v, fallback string) string {
	if v == "" {
		return fallback
	}
	return v
}
