package bench_test

import (
	"testing"
	"time"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/reports"
	"github.com/idemspec/idemspec/scenarios"
)

// BenchmarkDetection runs S4 at default settings against the
// check-then-insert mutant with its race window (the time between its
// look-up and its insert) narrowed to 1 ms, 100 µs and 10 µs, one CLI run
// per op, and reports the share of runs S4 caught, the requests a run
// spends, the requests spent until the first burst that created a
// duplicate, the share of tight and of widened bursts that made one, the
// tight bursts' arrival spread, and how wide the window really is
// (measured here, beside a time.Sleep of the nominal width).
func BenchmarkDetection(b *testing.B) {
	for _, window := range []string{"1ms", "100us", "10us"} {
		b.Run("window="+window, func(b *testing.B) {
			target := "fake:check-then-insert?delay=" + window
			idemspecBinary(b)
			d, err := time.ParseDuration(window)
			if err != nil {
				b.Fatal(err)
			}
			work, slept := windows(d, 50)
			var caught, requests, toCatch int
			bursts, dups := map[string]int{}, map[string]int{} // per kind: bursts, bursts that made a duplicate
			var tight []time.Duration
			b.ResetTimer()
			for range b.N {
				r := runCLI(b, "--target", target, "--label-filter", scenarios.S4.ID)
				s4 := checkResult(b, r, scenarios.S4.ID)
				requests += len(s4.Evidence.History)
				for i, bu := range s4.Evidence.Bursts {
					kind := burstKind(bu.Fault)
					bursts[kind]++
					if i < len(s4.Evidence.Readings) && s4.Evidence.Readings[i].Count > 1 {
						dups[kind]++
					}
				}
				for _, bu := range s4.Evidence.Bursts {
					if burstKind(bu.Fault) == "tight" && bu.ArrivalKnown {
						tight = append(tight, bu.ArrivalSpread)
					}
				}
				switch s4.Verdict {
				case check.FAIL:
					caught++
					toCatch += requestsToCatch(s4)
				case check.PASS:
				default:
					b.Fatalf("S4 %s: %s", s4.Verdict, s4.Reason)
				}
			}
			b.StopTimer()
			b.ReportMetric(100*float64(caught)/float64(b.N), "caught-%")
			b.ReportMetric(float64(requests)/float64(b.N), "requests/run")
			for _, kind := range []string{"tight", "widened"} {
				b.ReportMetric(100*float64(dups[kind])/float64(max(1, bursts[kind])), kind+"-bursts-caught-%")
			}
			if caught > 0 {
				b.ReportMetric(float64(toCatch)/float64(caught), "requests-to-catch")
			}
			b.ReportMetric(micros(quantile(tight, 0.5)), "tight-arrival-p50-us")
			b.ReportMetric(micros(quantile(work, 0.5)), "window-p50-us")
			b.ReportMetric(micros(quantile(slept, 0.5)), "sleep-p50-us")
		})
	}
}

// windows measures n of the mutant's race windows of nominal width d
// (fakes.Work, what its handler does between look-up and insert), and as
// many time.Sleep(d) for comparison: the window S4 really meets is the
// measured one, not the nominal one.
func windows(d time.Duration, n int) (work, sleep []time.Duration) {
	for range n {
		start := time.Now()
		fakes.Work(d)
		work = append(work, time.Since(start))
		start = time.Now()
		time.Sleep(d)
		sleep = append(sleep, time.Since(start))
	}
	return work, sleep
}

// burstKind tells S4's tight bursts (no fault) from its widened ones.
func burstKind(fault string) string {
	if fault == "" {
		return "tight"
	}
	return "widened"
}

// checkResult finds one check's result in a run's report.
func checkResult(b *testing.B, r cliRun, id string) reports.CheckResult {
	b.Helper()
	for _, c := range r.report.Checks {
		if c.ID == id {
			return c
		}
	}
	b.Fatalf("no %s in the report\n%s", id, r.output)
	return reports.CheckResult{}
}

// requestsToCatch counts the requests S4 sent up to the end of the first
// burst (with its follow-up) after which the oracle saw more than one
// resource: what a run that stopped at the first catch would have spent.
func requestsToCatch(s4 reports.CheckResult) int {
	ev := s4.Evidence
	for i, r := range ev.Readings {
		if r.Count <= 1 || i >= len(ev.Bursts) {
			continue
		}
		if i+1 < len(ev.Bursts) && len(ev.Bursts[i+1].Seqs) > 0 {
			return ev.Bursts[i+1].Seqs[0] - 1
		}
		return len(ev.History)
	}
	return len(ev.History)
}

// BenchmarkRestartWindow runs S5a against record-after-answer-quick, whose
// record lands 100 µs after its answer, one CLI run per op, and reports
// the share of runs whose restart landed inside that gap in some round
// (S5a FAIL) and the rounds a catch took. The detection matrix holds the
// window open (window=held) so its verdict does not ride the machine's
// load; this is the narrow window's rate, on this machine, now.
func BenchmarkRestartWindow(b *testing.B) {
	idemspecBinary(b)
	var caught, rounds int
	b.ResetTimer()
	for range b.N {
		r := runCLI(b, "--target", "fake:record-after-answer-quick", "--label-filter", scenarios.S5a.ID)
		s5a := checkResult(b, r, scenarios.S5a.ID)
		switch s5a.Verdict {
		case check.FAIL:
			caught++
			rounds += len(s5a.Evidence.Restarts)
		case check.PASS:
		default:
			b.Fatalf("S5a %s: %s", s5a.Verdict, s5a.Reason)
		}
	}
	b.StopTimer()
	b.ReportMetric(100*float64(caught)/float64(b.N), "caught-%")
	if caught > 0 {
		b.ReportMetric(float64(rounds)/float64(caught), "rounds-to-catch")
	}
}
