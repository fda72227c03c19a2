package proc

import (
	"os"
	"syscall"
)

// Windows has neither process groups that a signal reaches nor /proc:
// a stop ends the command itself (TerminateProcess, so SIGTERM is as
// abrupt as SIGKILL), and what the command started is not found. The
// release builds for Windows so that idemspec runs there against a
// target it does not start; managed processes and hooks are for unix.

func ownGroup(a *syscall.SysProcAttr) { a.CreationFlags |= syscall.CREATE_NEW_PROCESS_GROUP }

func signalGroup(pid int, sig syscall.Signal) error { return signalProcess(pid, sig) }

func signalProcess(pid int, _ syscall.Signal) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

func pgidOf(int) int { return 0 }
