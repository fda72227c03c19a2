// Package outfile writes the files idemspec leaves in a report directory
// (reports, ginkgo.log, target.log) one way: mode 0644 less the umask,
// and a symlink found at a report path is replaced, never followed, so a
// planted link cannot make idemspec write somewhere else.
package outfile
