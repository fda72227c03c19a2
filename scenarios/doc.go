// Package scenarios is the Ginkgo suite: one file per check group. It is
// an ordinary package, not _test files, so the idemspec binary embeds it
// (as Kubernetes' e2e.test does); scenarios_test.go runs the same specs
// under `go test` against the reference fake.
//
// Every check is a check.Check value in a file of its own (Check is its
// instance here); the runner (runner.go) makes one spec per check and
// operation from the registry. A spec drives the target through the
// harness, records a history, hands it with the oracle's readings to its
// check's judge, and the runner keeps the verdict and evidence as a
// value: Results hands the run back for package reports. Each judge is a pure function
// in its check's file (S1's OneResource in s1.go), built from the
// requirements the judges share (judging.go, jobjudging.go); it never
// sends, sleeps or reads a clock, and judge_*_test.go holds it to
// hand-made histories. The stimulus around it never decides a verdict.
package scenarios
