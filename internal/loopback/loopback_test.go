package loopback_test

import (
	"net"
	"testing"

	"github.com/idemspec/idemspec/internal/loopback"
)

// A generation's connections close together, and one that arrives after
// is closed at once: an agent never keeps a session past a restart.
func TestConnsCloseTogether(t *testing.T) {
	var cs loopback.Conns
	a, peerA := net.Pipe()
	b, peerB := net.Pipe()
	defer peerA.Close()
	defer peerB.Close()
	if !cs.Hold(a) {
		t.Fatal("Hold refused a connection before Close")
	}
	cs.Close()
	if _, err := a.Write([]byte("x")); err == nil {
		t.Error("a held connection stayed open after Close")
	}
	if cs.Hold(b) {
		t.Error("Hold took a connection after Close")
	}
	if _, err := b.Write([]byte("x")); err == nil {
		t.Error("a connection refused after Close stayed open")
	}
}
