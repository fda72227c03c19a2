// Package console shows a run to the person who started it: one line per
// finished check, and on a terminal a status line redrawn in place (check
// k of N, the check under way, its elapsed time, how far the property
// search has got) and the verdicts in colour. Off a terminal it prints
// the same plain lines in the catalogue's order, whatever order the seed
// ran the checks in, so two runs' logs compare line by line.
//
// It knows nothing of Ginkgo or of how checks run: it is told what the
// run holds, when a check starts and ends, and what the search says. It
// never writes an escape code to something that is not a terminal.
package console
