package main

import (
	"path"
	"slices"
)

// Goal is one row of the summary: a metric of the benchmarks whose name
// matches Bench (a path.Match pattern, so one row can cover a benchmark
// per mutant), and the bound it must keep. Op "" is a figure reported
// without a goal.
type Goal struct {
	Measure string
	Bench   string
	Metric  string
	Op      string // "<=", ">=" or ""
	Bound   float64
}

// Goals are issue 10's (and issue 35's burst through the lane), in the
// order docs/PERFORMANCE.md lists them.
var Goals = []Goal{
	{"proxy overhead: proxied/direct at p50", "ProxyOverhead", "ratio-p50", "<=", 1.3},
	{"proxy overhead: µs added at p50", "ProxyOverhead", "added-p50-us", "<=", 50},
	{"burst N=10: arrival spread p50 (µs)", "Burst/N=10/server=in-process", "clean-arrival-p50-us", "", 0},
	{"burst N=100: arrival spread p50 (µs)", "Burst/N=100/server=in-process", "clean-arrival-p50-us", "<=", 1000},
	{"burst N=100, straight to the fake (µs)", "Burst/N=100/server=in-process", "direct-arrival-p50-us", "", 0},
	{"burst N=100, fake in its own process (µs)", "Burst/N=100/server=process", "clean-arrival-p50-us", "", 0},
	{"burst N=100: the server's floor (µs)", "BurstFloor/N=100", "floor-arrival-p50-us", "", 0},
	{"burst N=100 through the lane, side by side with the floor: ratio", "BurstFloor/N=100", "clean-floor-ratio", "<=", 1.3},
	{"burst N=100 straight to the server, beside the floor: ratio", "BurstFloor/N=100", "direct-floor-ratio", "", 0},
	{"burst N=100 through the lane / straight to the server: ratio", "BurstFloor/N=100", "clean-direct-ratio", "<=", 1.1},
	{"burst N=1000: arrival spread p50 (µs)", "Burst/N=1000/server=in-process", "clean-arrival-p50-us", "", 0},
	{"burst N=1000: requests answered (%)", "Burst/N=1000/server=*", "clean-answered-%", ">=", 100},
	{"burst N=1000: the server's floor (µs)", "BurstFloor/N=1000", "floor-arrival-p50-us", "", 0},
	{"burst N=1000 through the lane / straight to the server: ratio", "BurstFloor/N=1000", "clean-direct-ratio", "<=", 1.1},
	{"detection, 1 ms window: S4 runs caught (%)", "Detection/window=1ms", "caught-%", ">=", 100},
	{"detection, 100 µs window: S4 runs caught (%)", "Detection/window=100us", "caught-%", ">=", 100},
	{"detection, 10 µs window: S4 runs caught (%)", "Detection/window=10us", "caught-%", "", 0},
	{"detection: requests per S4 run", "Detection/window=100us", "requests/run", "", 0},
	{"detection, 100 µs after the answer: S5a runs caught (%)", "RestartWindow", "caught-%", "", 0},
	{"suite: full default run, wall (s)", "Suite", "wall-p50-s", "<=", 10},
	{"memory: peak RSS of the default run (MB)", "Suite", "peak-rss-MB", "<=", 150},
	{"memory: peak RSS, S4 with bursts of 250 (MB)", "BurstMemory/N=250", "peak-rss-MB", "", 0},
	{"memory: peak RSS, S4 with bursts of 1000 (MB)", "BurstMemory/N=1000", "peak-rss-MB", "<=", 150},
	{"memory: S4 with bursts of 1000 / without a burst (ratio)", "BurstMemory/N=1000", "rss-ratio", "", 0},
	{"memory: a 1000-burst through the proxy adds (MB)", "BurstFootprint/N=1000", "clean-peak-MB", "", 0},
	{"memory: a 1000-burst straight to the fake adds (MB)", "BurstFootprint/N=1000", "direct-peak-MB", "", 0},
	{"memory: a 1000-burst, through the proxy / straight (ratio)", "BurstFootprint/N=1000", "clean-direct-ratio", "", 0},
	{"memory: ten readings of a 900k-id list hold (MB)", "HugeListReadings", "sample-held-MB", "<=", 10},
	{"memory: the same with every id kept, as before (MB)", "HugeListReadings", "every-id-held-MB", "", 0},
	{"report: ten such readings in report.json (MB)", "HugeListReadings", "sample-report-MB", "<=", 2},
	// The property search on the default pool (sized to the API: six
	// workers against a 200 ms create) against one worker, from the same
	// seed, the served reference's handler taking 200 ms; and the share
	// of runs catching each race mutant.
	{"property search, 200 ms API served: one worker / the pool (ratio)", "SearchWorkers/target=served", "speedup", ">=", 3},
	{"property search, 200 ms API managed (restarts, crashes): one worker / the pool (ratio)", "SearchWorkers/target=process", "speedup", ">=", 3},
	{"full default suite, 200 ms API managed: one worker / the pool (ratio)", "SearchWorkers/target=suite", "speedup", ">=", 2},
	{"property search, 200 ms API: one worker (s)", "SearchWorkers/target=*", "one-worker-s", "", 0},
	{"property search, 200 ms API: the pool (s)", "SearchWorkers/target=*", "pool-s", "", 0},
	{"property search: runs caught with the pool (%)", "SearchDetection/*", "pool-caught-%", "", 0},
	{"property search: runs caught with one worker (%)", "SearchDetection/*", "one-worker-caught-%", "", 0},
	{"property search: caught, four workers minus one (points)", "SearchDetection/*", "caught-diff-points", ">=", 0},
	// scenarios.BenchmarkFirstCounterexample (P1, issue 5) fails when a
	// run misses its mutant, so a figure here means every run found it.
	{"property: time to first counterexample (ms)", "FirstCounterexample/*", "ms/counterexample", "", 0},
	{"property: sequences to first counterexample", "FirstCounterexample/*", "sequences/counterexample", "", 0},
}

// Verdict says how a figure stands against its goal.
type Verdict string

const (
	Met      Verdict = "met"
	Missed   Verdict = "MISSED"
	Reported Verdict = "-"       // no goal: context
	NoData   Verdict = "no data" // the benchmark did not run
)

// Row is a goal applied to one benchmark's figure.
type Row struct {
	Goal
	Name    string // the benchmark the figure came from
	Figure  Figure
	Verdict Verdict
}

// Judge applies every goal to the results: one row per matching
// benchmark, or one "no data" row when none ran.
func Judge(goals []Goal, r Results) []Row {
	var rows []Row
	for _, g := range goals {
		found := false
		for _, name := range r.Names() {
			vs, ok := r[name][g.Metric]
			if match, _ := path.Match(g.Bench, name); !match || !ok {
				continue
			}
			found = true
			f := figureOf(vs)
			rows = append(rows, Row{Goal: g, Name: name, Figure: f, Verdict: verdict(g, f)})
		}
		if !found {
			rows = append(rows, Row{Goal: g, Name: g.Bench, Verdict: NoData})
		}
	}
	return rows
}

// verdict judges the median: the worst repeat is in the range column for
// the reader to weigh.
func verdict(g Goal, f Figure) Verdict {
	switch g.Op {
	case "<=":
		return pick(f.Median <= g.Bound)
	case ">=":
		return pick(f.Median >= g.Bound)
	}
	return Reported
}

func pick(ok bool) Verdict {
	if ok {
		return Met
	}
	return Missed
}

// covered reports whether a metric of a benchmark has a row.
func covered(rows []Row, name, metric string) bool {
	return slices.ContainsFunc(rows, func(r Row) bool { return r.Name == name && r.Metric == metric })
}
