// Package bench measures idemspec itself: what the proxy hop costs, how
// tightly a burst arrives, how often S4 catches a narrow race and at what
// price in requests, how long the default suite takes and how much memory
// it needs, and how soon the property run finds each mutant.
//
// Everything is a Go benchmark (files *_test.go, so `go test` without
// -bench never runs them); figures that matter are custom metrics
// (b.ReportMetric), and anything compared (proxied against direct) is
// measured side by side in the same loop, because the machine is shared
// and its speed changes from one second to the next. Benchmarks never
// assert a timing: they report. `make bench` runs them and
// cmd/benchsummary turns the output into a table against the goals of
// docs/PERFORMANCE.md.
package bench
