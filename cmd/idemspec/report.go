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
		summary: "re-render a JSON report, compare several (--compare a.json b.json ...) or merge a sharded run's (--merge)",
		long:    reportUsage,
		args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return errors.New("report: name a JSON report (several with --compare or --merge)")
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
  idemspec report --merge [--out DIR] SHARD1.json SHARD2.json ...
      one report of the N shards of a run (idemspec run --shard I/N), as
      if one run had made it: report.json, junit.xml, report.md and
      report.html in DIR (defaults to idemspec-report); each check says
      which shard ran it. Refuses reports of different target files,
      idemspec versions or flags, and a set with a shard missing or twice.
      The exit code is the merged run's, as idemspec run's would be.
`

func reportCommand(fs *pflag.FlagSet) body {
	compare := fs.Bool("compare", false, "compare several JSON reports in a matrix")
	merge := fs.Bool("merge", false, "merge the JSON reports of a sharded run's shards into one report")
	out := fs.String("out", "", "output `DIR`ectory")
	return func(paths []string, stdout, stderr io.Writer) int {
		if *merge {
			return mergeReports(paths, *compare, *out, stdout, stderr)
		}
		return report(paths, *compare, *out, stdout, stderr)
	}
}

func report(paths []string, compare bool, out string, stdout, stderr io.Writer) int {
	if !compare && len(paths) > 1 {
		return fail(stderr, "report: one JSON report at a time; to compare several, add --compare (to merge a sharded run's, --merge)")
	}
	runs, err := readReports(paths)
	if err != nil {
		return fail(stderr, err)
	}
	var written []string
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

func readReports(paths []string) ([]reports.Report, error) {
	var runs []reports.Report
	for _, p := range paths {
		r, err := reports.ReadJSON(p)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// mergeReports is --merge: the shards' reports become the four reports
// of one run, and the exit code is that run's (so a CI job that merges
// fails the way an unsharded run would).
func mergeReports(paths []string, compare bool, out string, stdout, stderr io.Writer) int {
	if compare {
		return fail(stderr, "report: --merge and --compare do not go together; merge first, then compare the merged report.json")
	}
	runs, err := readReports(paths)
	if err != nil {
		return fail(stderr, err)
	}
	merged, err := reports.Merge(runs, paths)
	if err != nil {
		return fail(stderr, fmt.Errorf("report --merge: %w", err))
	}
	written, err := reports.WriteAll(or(out, "idemspec-report"), merged)
	if err != nil {
		return fail(stderr, err)
	}
	s := merged.Summary
	fmt.Fprintf(stdout, "%d shards, %d checks: %d pass, %d fail, %d warn, %d skip, %d error\n", len(runs), s.Total, s.Pass, s.Fail, s.Warn, s.Skip, s.Error)
	fmt.Fprintf(stdout, "reports: %s\n", strings.Join(written, ", "))
	return merged.ExitCode()
}
