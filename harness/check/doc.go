// Package check is the catalogue of checks and the pure functions that
// judge them.
//
// A check is a value with a stable ID (never a position), a title that
// reads "should ...", a level and the clause it comes from. Checkers take
// a recorded history and the oracle's readings and return a Verdict; they
// never sleep, send or read a clock, so they are unit-tested on hand-made
// histories.
package check
