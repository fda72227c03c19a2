package reports_test

import (
	"fmt"
	"time"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/harness/history"
	"github.com/idemspec/idemspec/reports"
)

// A synthetic report with every verdict and every kind of evidence, for
// testing the writers without running anything. Its checks are made up
// (the writers must handle any check, including ones added later), and
// some of its text is hostile: Markdown and HTML syntax, pipes, Mermaid
// separators.

var t0 = time.Date(2026, 5, 4, 10, 30, 0, 0, time.UTC)

// hostile is text a target could put in an answer body or an error.
const hostile = "<script>alert(1)</script> | a;b #c `d` *e*"

func exchange(seq int, step, lane string, status int, id string) history.Exchange {
	return history.Exchange{
		Seq: seq, Step: step, Key: "r1a2b3c4-2b4d-4e6f-8a0b-1c2d3e4f5a6b", Payload: "68d615b879ce", Variant: "100",
		Lane: lane, Start: t0.Add(time.Duration(seq) * 10 * time.Millisecond), Duration: 4 * time.Millisecond,
		Outcome: history.OK, Status: status, ResourceID: id, Body: `{"id":"` + id + `"}`,
		Arrival: t0.Add(time.Duration(seq)*10*time.Millisecond + time.Millisecond),
	}
}

func burstExchanges(first, n int) []history.Exchange {
	var out []history.Exchange
	for i := 0; i < n; i++ {
		x := exchange(first+i, fmt.Sprintf("tight burst %d/%d", i+1, n), "clean", 201, fmt.Sprintf("res_%02d", i))
		x.Start = t0.Add(time.Duration(i) * 20 * time.Microsecond)
		x.Arrival = x.Start.Add(300 * time.Microsecond)
		x.Duration = time.Duration(20+i) * time.Millisecond
		out = append(out, x)
	}
	return out
}

func seqsOf(xs []history.Exchange) []int {
	var out []int
	for _, x := range xs {
		out = append(out, x.Seq)
	}
	return out
}

func syntheticReport() reports.Report {
	lost := exchange(1, "first (answer lost)", "faulty", 0, "")
	lost.Outcome, lost.Fault, lost.Error, lost.Body, lost.Arrival = history.MaybeApplied, "response-loss", "timeout awaiting answer", "", time.Time{}
	burst := burstExchanges(1, 24)
	checks := []reports.CheckResult{
		{
			Entry:   check.Entry{ID: "S1", Title: "should create exactly one resource", Level: check.MUST, Clause: "core", Group: "core"},
			Verdict: check.PASS, DurationMS: 31.5,
			Evidence: check.Evidence{
				History:  []history.Exchange{exchange(1, "send 1", "clean", 201, "res_a"), exchange(2, "send 2", "clean", 201, "res_a")},
				Readings: []check.Reading{{Marker: "idemspec-r1-S1-1", Count: 1, IDs: []string{"res_a"}, Oracle: "list", When: "after the sends"}},
			},
		},
		{
			Entry:   check.Entry{ID: "S2", Title: "should replay the original result to a retry whose first response was lost", Level: check.MUST, Clause: "draft §2.6", Group: "core"},
			Verdict: check.FAIL, Reason: "the retry created a second resource (expected res_a, observed res_b)", DurationMS: 42,
			Violations: []check.Violation{{What: "the retry created a second resource", Expected: "res_a", Observed: "res_b", Seqs: []int{1, 2}}},
			Evidence: check.Evidence{
				History:  []history.Exchange{lost, exchange(2, "retry", "clean", 201, "res_b"), exchange(3, "second retry", "clean", 201, "res_b")},
				Readings: []check.Reading{{Marker: "idemspec-r1-S2-2", Count: 2, IDs: []string{"res_a", "res_b"}, Oracle: "list", When: "after the retries"}},
				Faults:   []string{"response-loss on the faulty lane for the first attempt"},
			},
		},
		{
			Entry:   check.Entry{ID: "S4", Title: "should execute a burst of concurrent same-key requests exactly once", Level: check.MUST, Clause: "core", Group: "core"},
			Verdict: check.FAIL, Reason: "burst of 24: different resource ids", DurationMS: 80,
			Violations: []check.Violation{
				{What: "burst of 24 on the clean lane: successful answers carried different resource ids", Expected: "one id", Observed: "24 ids", Seqs: seqsOf(burst)},
				{What: "the oracle counts 24 resources for one key", Expected: "1", Observed: "24"},
			},
			Evidence: check.Evidence{
				History: burst,
				Bursts: []history.Burst{{Key: burst[0].Key, Size: 24, Lane: "clean", Ready: 24, ReleaseSpread: 460 * time.Microsecond,
					ArrivalSpread: 460 * time.Microsecond, ArrivalKnown: true, Seqs: seqsOf(burst)}},
				Readings: []check.Reading{{Marker: "idemspec-r1-S4-3", Count: 24, Oracle: "list", When: "after the tight burst"}},
			},
		},
		{
			Entry:   check.Entry{ID: "S5a", Title: "should keep the key record across a restart", Level: check.MUST, Clause: "core", Group: "restart"},
			Verdict: check.SKIP, Reason: "the target declares no restart hook",
		},
		{
			Entry:   check.Entry{ID: "K3", Title: "should answer a missing key with 400", Level: check.SHOULD, Clause: "draft §2.7 | missing", Group: "keys"},
			Verdict: check.WARN, Reason: "a request without a key was accepted (expected 400, observed 201)", DurationMS: 5,
			Violations: []check.Violation{{What: "a request without a key was accepted " + hostile, Expected: "400", Observed: "201", Seqs: []int{1}}},
			Evidence: check.Evidence{
				History: []history.Exchange{func() history.Exchange {
					x := exchange(1, "no key; step #1", "clean", 201, "res_k")
					x.Key, x.Body = "", hostile
					return x
				}()},
				Notes: []string{"note with " + hostile},
			},
		},
		{
			Entry:   check.Entry{ID: "T9", Title: "should be judged even when the harness breaks", Level: check.MAY, Clause: "core", Group: "tenancy"},
			Verdict: check.ERROR, Reason: "oracle: GET /resources: connection refused",
		},
	}
	return reports.Report{
		Schema:  reports.Schema,
		Tool:    reports.Tool{Name: "idemspec", Version: "1.2.3-test"},
		Run:     reports.Run{ID: "r1a2b3c4", Seed: 4242, Started: t0, DurationMS: 1234.5, Strict: false, Complete: true},
		Target:  reports.Target{Name: "orders-api", Source: "orders.yaml", BaseURL: "http://127.0.0.1:8080", Profile: "ietf", Oracle: "list"},
		Checks:  checks,
		Summary: reports.Summary{Total: 6, Pass: 1, Fail: 2, Warn: 1, Skip: 1, Error: 1},
	}
}

// byID finds a check in a report.
func byID(r reports.Report, id string) reports.CheckResult {
	for _, c := range r.Checks {
		if c.ID == id {
			return c
		}
	}
	panic("no check " + id)
}
