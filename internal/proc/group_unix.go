//go:build unix

package proc

import "syscall"

// ownGroup starts the command in a process group of its own, so that a
// signal to the group reaches everything it started.
func ownGroup(a *syscall.SysProcAttr) { a.Setpgid = true }

func signalGroup(pgid int, sig syscall.Signal) error { return syscall.Kill(-pgid, sig) }

func signalProcess(pid int, sig syscall.Signal) error { return syscall.Kill(pid, sig) }

// pgidOf is a process's group, or 0.
func pgidOf(pid int) int {
	g, err := syscall.Getpgid(pid)
	if err != nil {
		return 0
	}
	return g
}
