package freeport

import (
	"net"
	"strconv"
	"testing"
)

// TestFreePortIsOutsideTheEphemeralRange: a process target's port must
// not be one the kernel may hand to another program's port-0 listener or
// outgoing connection while the process restarts; it must also be free.
func TestFreePortIsOutsideTheEphemeralRange(t *testing.T) {
	lo, hi := ephemeralRange()
	for i := 0; i < 50; i++ {
		port, err := Pick()
		if err != nil {
			t.Fatal(err)
		}
		if port >= lo && port <= hi {
			t.Fatalf("port %d is inside the ephemeral range %d-%d", port, lo, hi)
		}
		if port < 1024 || port > 65535 {
			t.Fatalf("port %d is not a user port", port)
		}
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			t.Fatalf("port %d is not free: %v", port, err)
		}
		ln.Close()
	}
}

// TestOutsideLeavesTheRangeOut: the ranges drawn from never overlap the
// ephemeral range, and a sliver too small to draw from is left out.
func TestOutsideLeavesTheRangeOut(t *testing.T) {
	for _, c := range []struct {
		lo, hi int
		want   [][2]int
	}{
		{32768, 60999, [][2]int{{10000, 32767}, {61000, 65535}}},
		{49152, 65535, [][2]int{{10000, 49151}}},
		{1024, 65535, nil},
		{10500, 65000, nil},
		{1024, 20000, [][2]int{{20001, 65535}}},
	} {
		got := outside(c.lo, c.hi)
		if len(got) != len(c.want) {
			t.Fatalf("outside(%d, %d) = %v, want %v", c.lo, c.hi, got, c.want)
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Fatalf("outside(%d, %d) = %v, want %v", c.lo, c.hi, got, c.want)
			}
		}
	}
}

// TestNthCountsAcrossRanges: the draw reaches every port of every range
// and no other.
func TestNthCountsAcrossRanges(t *testing.T) {
	r := [][2]int{{10000, 10999}, {20000, 20999}}
	for n, want := range map[int]int{0: 10000, 999: 10999, 1000: 20000, 1999: 20999} {
		if got := nth(r, n); got != want {
			t.Errorf("nth(%d) = %d, want %d", n, got, want)
		}
	}
}
