//go:build unix

package console

import (
	"os"

	"golang.org/x/sys/unix"
)

// columns is the terminal's width (0: unknown).
func columns(f *os.File) int {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Col)
}
