// Package wire is idemspec's HTTP-aware interposer: it stands between a
// program under test and the lane to its API, reads every request,
// matches it to the target file's operations by method and path
// template, forwards it (or answers it itself), and records every
// exchange in a Record, the answers it then drops included.
//
// Toxiproxy works on whole connections; the interposer aims a fault at
// one request of one operation ("the first create of charge"): lose the
// answer after the API ran it, answer 503 or 422 itself, hold the request
// until idemspec has killed the program, or swallow it. Every hold and
// every wait is bounded.
//
// The Record is the wire's own account of what the program did and what
// the API answered: client mode judges a program that carries no marker
// from it, and the wire oracle reads it.
package wire
