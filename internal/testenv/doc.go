// Package testenv is what this module's tests share about the world they
// run in: the PostgreSQL server CI starts, the module's programs built
// once for a test binary, and bounded waits on a condition no signal
// announces. It is imported by _test files only.
package testenv
