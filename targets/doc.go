// Package targets describes what idemspec tests: how to build the create
// request for a key and payload, where the resource id is in the answer,
// how to count the resources a run created (the oracle), and what the
// target declares about itself (profile, volatile fields, timeouts, what
// it can do).
//
// A Target is built from a YAML target file, or in code (described.go:
// package fakes describes its built-in fakes so). It never sends the
// create request itself: the harness does, through its proxy lanes, so
// every attempt is recorded.
package targets
