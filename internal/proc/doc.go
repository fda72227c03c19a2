// Package proc runs the commands idemspec starts (oracle and cleanup
// commands, restart hooks, client commands, managed target processes) so
// that none outlives its bound. Each runs in its own process group and
// carries a tag in its environment, so that a descendant which left the
// group (setsid, a double fork) is still found through /proc. A stop is
// SIGTERM to all of them, a grace period, then SIGKILL to all of them, and
// the command is always waited for.
//
// It must never signal a process it did not start: only the group it
// created and processes carrying its own tag. A descendant that leaves the
// group and also drops its environment (env -i, a daemon that resets it)
// cannot be found this way.
package proc
