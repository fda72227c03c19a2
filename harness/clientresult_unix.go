//go:build unix

package harness

import "syscall"

// resultOpenFlags open a result file without waiting and without
// following a link: a named pipe at the path would block a plain open
// until something writes to it, and a link could lead to idemspec's own
// standard input (/proc/self/fd/0).
const resultOpenFlags = syscall.O_NONBLOCK | syscall.O_NOFOLLOW
