package proctest

import (
	"crypto/rand"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Life is how long a hostile command runs unless it is stopped: Sleep's
// 1000 s.
const Life = 1000 * time.Second

// Stopped says whether a command that took took to end was stopped,
// rather than left to run its Life. A busy machine delays a kill by
// milliseconds, or seconds at worst, never by half a Life: so the
// verdict says what was done to the command, not how busy the machine
// was.
func Stopped(took time.Duration) bool { return took < Life/2 }

// Sleep is a `sleep` command line whose argument is unique to this call:
// `sleep 1000.NNNNNN` (GNU and busybox sleep take fractions).
func Sleep() string {
	n, _ := rand.Int(rand.Reader, big.NewInt(1_000_000))
	return fmt.Sprintf("sleep 1000.%06d", n.Int64())
}

// Hostile is a command that outlives its bound unless it is stopped by
// force: Line is a shell line around a unique Sleep, which a scan for
// Sleep finds.
type Hostile struct {
	Name, Line, Sleep string
}

// Hostiles are one command that ignores SIGTERM and one that double-forks
// out of its process group and session; each sleeps for 1000 s unless
// stopped. Append to Line to add what the command does next.
func Hostiles() []Hostile {
	deaf, forker := Sleep(), Sleep()
	return []Hostile{
		{Name: "ignores SIGTERM", Line: "trap '' TERM; " + deaf + "; ", Sleep: deaf},
		{Name: "double-forks", Line: "setsid " + forker + " & ", Sleep: forker},
	}
}

// Alive lists the live processes (zombies excluded) whose command line
// contains s.
func Alive(s string) []int {
	var out []int
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		cmdline, err := os.ReadFile(d + "/cmdline")
		if err != nil || !strings.Contains(strings.ReplaceAll(string(cmdline), "\x00", " "), s) {
			continue
		}
		stat, err := os.ReadFile(d + "/stat")
		if err != nil {
			continue
		}
		if _, rest, _ := strings.Cut(string(stat), ") "); strings.HasPrefix(rest, "Z") {
			continue
		}
		var pid int
		fmt.Sscan(filepath.Base(d), &pid)
		out = append(out, pid)
	}
	return out
}

// GoneSoon waits for every process running s to be gone (a SIGKILL is
// delivered at once, but the kernel may take a moment to end the process,
// longer on a busy machine) and returns those still alive after a
// minute. It returns as soon as none is left.
func GoneSoon(s string) []int {
	deadline := time.Now().Add(time.Minute)
	for {
		left := Alive(s)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(10 * time.Millisecond)
	}
}
