// Command benchsummary reads the output of idemspec's benchmarks
// (`go test -bench ./bench/`, any number of runs and -count repeats) and
// prints one table: each goal of docs/PERFORMANCE.md with the median of
// its figure over the repeats, their range, and whether the goal is met.
// Figures without a goal are listed below it for context.
//
//	benchsummary FILE...      (or the output on stdin)
//
// It reports; it never fails a goal by its exit code (the machine is
// shared and noisy, and a benchmark is not a test). It exits 2 when the
// input holds no benchmark result at all.
package main
