// Package fakes holds the reference idempotent server and its mutants.
//
// The reference server is what a correct implementation looks like: the
// request key is a primary key scoped by tenant, so the database's unique
// constraint (never a look-up followed by an insert) decides which of two
// concurrent requests owns a key; the record stores a payload hash, an
// in-flight state answered with 409, and the final status and body, which
// are replayed byte for byte; records live in SQLite and survive restarts.
//
// Each mutant is the reference server with exactly one named bug, and
// declares which checks must catch it. The detection matrix test runs the
// harness against every mutant and holds the harness to those entries.
//
// Nothing here knows about the harness: fakes are ordinary HTTP servers.
package fakes
