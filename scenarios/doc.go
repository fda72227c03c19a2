// Package scenarios is the Ginkgo suite: one file per check group. It is
// an ordinary package, not _test files, so the idemspec binary embeds it
// (as Kubernetes' e2e.test does); scenarios_test.go runs the same specs
// under `go test` against the reference fake.
//
// A spec drives the target through the harness, records a history, asks
// a pure checker in harness/check for the verdict, and attaches verdict
// and evidence with AddReportEntry. Specs never judge by themselves.
package scenarios
