// Package history records what the harness sent and what came back.
//
// A History is the only input a checker gets besides the oracle's counts:
// every attempt the harness made is one Exchange, in the order it started,
// with the lane and fault it went through and what the client saw. A
// request whose answer the client did not see is recorded as
// MaybeApplied, and checkers must accept both worlds for it, as Jepsen
// does with :info operations.
//
// This package is plain data: no network, no clock reads beyond what the
// caller passes in, safe for concurrent appends.
package history
