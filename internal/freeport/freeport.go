// Package freeport picks loopback ports for servers that idemspec stops
// and starts again on the same port.
package freeport

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
)

// Pick picks a free loopback port for a server that idemspec restarts
// on the same port (a process target, an in-process fake).
//
// The server binds the port after idemspec has let it go, and binds it
// again after every restart and crash. A port the kernel hands out for
// 127.0.0.1:0 comes from its ephemeral range, where any other program's
// listener on port 0 or outgoing connection can land in between; one
// did (another suite's Toxiproxy lane, in front of a server with another
// profile), the restarted process could not bind, and the checks after
// the restart judged that other server. So the port is drawn at random
// from outside the ephemeral range, where nothing lands by accident, and
// is checked free by binding it.
func Pick() (int, error) {
	lo, hi := ephemeralRange()
	ranges := outside(lo, hi)
	if len(ranges) == 0 {
		return kernelPort()
	}
	total := 0
	for _, r := range ranges {
		total += r[1] - r[0] + 1
	}
	var last error
	for try := 0; try < 64; try++ {
		port := nth(ranges, rand.IntN(total))
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			last = err
			continue
		}
		ln.Close()
		return port, nil
	}
	return 0, fmt.Errorf("pick a free port: 64 ports outside the ephemeral range %d-%d were taken (last: %v)", lo, hi, last)
}

// nth is the n-th port of the ranges, counted from the first.
func nth(ranges [][2]int, n int) int {
	for _, r := range ranges {
		size := r[1] - r[0] + 1
		if n < size {
			return r[0] + n
		}
		n -= size
	}
	panic("freeport: n beyond the ranges")
}

// lowestPort is where the draw starts: below it sit the ports of common
// system services.
const lowestPort = 10000

// outside is the part of lowestPort-65535 that lies outside [lo, hi],
// as inclusive ranges of at least a thousand ports.
func outside(lo, hi int) [][2]int {
	var out [][2]int
	add := func(a, b int) {
		if b-a+1 >= 1000 {
			out = append(out, [2]int{a, b})
		}
	}
	add(lowestPort, min(lo-1, 65535))
	add(max(hi+1, lowestPort), 65535)
	return out
}

// ephemeralRange is the kernel's range for ports it hands out itself.
// Linux says so in /proc; elsewhere the IANA range covers BSD and macOS,
// and 32768 up covers older systems.
func ephemeralRange() (lo, hi int) {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err == nil {
		if _, err := fmt.Sscan(string(b), &lo, &hi); err == nil && lo <= hi {
			return lo, hi
		}
	}
	return 32768, 65535
}

// kernelPort is the kernel's pick, when its range leaves no room.
func kernelPort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pick a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
