package main

import (
	"bytes"
	"strings"
	"testing"
)

// sample is go test -bench output as bench/run collects it: two repeats
// of one benchmark, a sub-benchmark with custom metrics, and noise.
const sample = `goos: linux
goarch: amd64
pkg: github.com/idemspec/idemspec/bench
cpu: AMD EPYC
BenchmarkProxyOverhead-2   	    2000	    604080 ns/op	        19.41 added-p50-us	         1.123 ratio-p50
BenchmarkProxyOverhead-2   	    2000	    558122 ns/op	        60.5 added-p50-us	         1.099 ratio-p50
BenchmarkProxyOverhead-2   	    2000	    558122 ns/op	        15.42 added-p50-us	         1.4 ratio-p50
BenchmarkDetection/window=10us-2         	      10	 131536114 ns/op	        90.00 caught-%
BenchmarkFirstCounterexample/nodedup-2   5   1 ns/op   250 ms/counterexample   100 found-%
BenchmarkFirstCounterexample/ignore-payload-2   5   1 ns/op   1500 ms/counterexample   80 found-%
    suite_test.go:40: slowest check: S4
PASS
ok  	github.com/idemspec/idemspec/bench	4.893s
`

func TestReadKeepsEveryRepeatByNameAndUnit(t *testing.T) {
	r := Results{}
	if err := r.Read(strings.NewReader(sample)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, unit string
		want       []float64
	}{
		{"ProxyOverhead", "ratio-p50", []float64{1.123, 1.099, 1.4}},
		{"ProxyOverhead", "ns/op", []float64{604080, 558122, 558122}},
		{"Detection/window=10us", "caught-%", []float64{90}},
		{"FirstCounterexample/ignore-payload", "found-%", []float64{80}},
	}
	for _, tt := range tests {
		got := r[tt.name][tt.unit]
		if len(got) != len(tt.want) {
			t.Errorf("%s %s: %v, want %v", tt.name, tt.unit, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%s %s: %v, want %v", tt.name, tt.unit, got, tt.want)
			}
		}
	}
	if len(r) != 4 {
		t.Errorf("read %d benchmarks, want 4: %v", len(r), r.Names())
	}
}

func TestReadRefusesAMalformedFigure(t *testing.T) {
	for _, line := range []string{
		"BenchmarkX-2  10  12 ns/op  abc caught-%",
		"BenchmarkX-2  10  12 ns/op  7",
	} {
		if err := (Results{}).Read(strings.NewReader(line)); err == nil {
			t.Errorf("%q: no error", line)
		}
	}
}

func TestFigureIsTheMedianOverRepeats(t *testing.T) {
	tests := []struct {
		vs   []float64
		want Figure
	}{
		{[]float64{3}, Figure{Median: 3, Min: 3, Max: 3, N: 1}},
		{[]float64{5, 1, 3}, Figure{Median: 3, Min: 1, Max: 5, N: 3}},
		{[]float64{4, 1, 3, 10}, Figure{Median: 3.5, Min: 1, Max: 10, N: 4}},
	}
	for _, tt := range tests {
		if got := figureOf(tt.vs); got != tt.want {
			t.Errorf("figureOf(%v) = %+v, want %+v", tt.vs, got, tt.want)
		}
	}
}

func TestJudgeAppliesEachGoalToEveryMatchingBenchmark(t *testing.T) {
	r := Results{}
	if err := r.Read(strings.NewReader(sample)); err != nil {
		t.Fatal(err)
	}
	goals := []Goal{
		{"ratio", "ProxyOverhead", "ratio-p50", "<=", 1.3},        // median 1.123
		{"added", "ProxyOverhead", "added-p50-us", "<=", 19},      // median 19.41
		{"caught", "Detection/window=10us", "caught-%", "", 0},    // no goal
		{"found", "FirstCounterexample/*", "found-%", ">=", 100},  // 100 and 80
		{"absent", "Suite", "wall-p50-s", "<=", 10},               // did not run
		{"wrong metric", "ProxyOverhead", "peak-rss-MB", "<=", 1}, // not reported
	}
	want := []struct {
		name    string
		verdict Verdict
	}{
		{"ProxyOverhead", Met},
		{"ProxyOverhead", Missed},
		{"Detection/window=10us", Reported},
		{"FirstCounterexample/ignore-payload", Missed},
		{"FirstCounterexample/nodedup", Met},
		{"Suite", NoData},
		{"ProxyOverhead", NoData},
	}
	rows := Judge(goals, r)
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(rows), len(want), rows)
	}
	for i, w := range want {
		if rows[i].Name != w.name || rows[i].Verdict != w.verdict {
			t.Errorf("row %d (%s): %s %s, want %s %s", i, rows[i].Measure, rows[i].Name, rows[i].Verdict, w.name, w.verdict)
		}
	}
}

func TestRunPrintsTheTableOrRefusesEmptyInput(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(nil, strings.NewReader(sample), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"proxy overhead: proxied/direct at p50", "1.12", "1.1 .. 1.4", "no data", "FirstCounterexample/nodedup", "other figures", "ns/op"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := run(nil, strings.NewReader("PASS\nok x 1s\n"), &out, &errb); code != 2 {
		t.Errorf("empty input: exit %d, want 2", code)
	}
	if code := run([]string{"/nonexistent/bench.txt"}, nil, &out, &errb); code != 2 {
		t.Errorf("missing file: exit %d, want 2", code)
	}
}

// burstFloor is BenchmarkBurstFloor's output: three repeats at N=100
// and N=1000, with other metrics beside the ratio.
const burstFloor = `BenchmarkBurstFloor/N=100-2   30   2e+08 ns/op   1582 clean-arrival-p50-us   0.9 clean-direct-ratio   1.04 clean-floor-ratio
BenchmarkBurstFloor/N=100-2   30   2e+08 ns/op   1563 clean-arrival-p50-us   1.2 clean-direct-ratio   1.10 clean-floor-ratio
BenchmarkBurstFloor/N=100-2   30   2e+08 ns/op   2447 clean-arrival-p50-us   1.05 clean-direct-ratio   1.47 clean-floor-ratio
BenchmarkBurstFloor/N=1000-2   30   2e+09 ns/op   37795 clean-arrival-p50-us   0.92 clean-direct-ratio
BenchmarkBurstFloor/N=1000-2   30   2e+09 ns/op   70075 clean-arrival-p50-us   2.44 clean-direct-ratio
BenchmarkBurstFloor/N=1000-2   30   2e+09 ns/op   81142 clean-arrival-p50-us   1.65 clean-direct-ratio
`

func TestTheLaneAgainstTheStraightPathIsAGoalAtBothSizes(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(nil, strings.NewReader(burstFloor), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	rows := map[string]string{}
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.Contains(line, "through the lane / straight to the server") {
			rows[strings.Fields(line)[1]] = line
		}
	}
	for n, want := range map[string][]string{
		"N=100":  {"BurstFloor/N=100", "<= 1.1", "1.05", "0.9 .. 1.2", "met"},
		"N=1000": {"BurstFloor/N=1000", "<= 1.1", "1.65", "0.92 .. 2.44", "MISSED"},
	} {
		row, ok := rows[n]
		if !ok {
			t.Errorf("no row for the lane against the straight path at %s:\n%s", n, out.String())
			continue
		}
		for _, w := range want {
			if !strings.Contains(row, w) {
				t.Errorf("%s row lacks %q: %s", n, w, row)
			}
		}
	}
}
