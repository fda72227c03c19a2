// Package proctest helps tests prove that a command idemspec ran left
// nothing behind: each hostile command sleeps for a duration no other
// process uses, so a scan of /proc finds exactly what it started.
package proctest
