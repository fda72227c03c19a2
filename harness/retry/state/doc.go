// Package state names where a retried operation stands: the states the
// reference retrying client (harness/retry) journals and ends in, and the
// three end states the client-mode contract asks every client to print
// (docs/CLIENT-CONTRACT.md). They are defined here once, in a package
// that imports nothing, so the judges and the contract can name them
// without depending on the client and its SQLite journal.
package state
