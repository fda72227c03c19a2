// Package check is the catalogue of checks and the vocabulary of their
// judgement: the one shape of a check (Check) and its registry, the
// catalogue's entries, verdicts, violations, evidence, the oracle's
// readings, the records of a client trial, and how two answers compare.
//
// A check is a value with a stable ID (never a position), a title that
// reads "should ...", a level and the clause it comes from; its Entry is
// what a report carries of it. The judges
// that return a Verdict live with their checks in package scenarios: they
// take a recorded history and the oracle's readings, and never sleep,
// send or read a clock, so they are unit-tested on hand-made histories.
package check
