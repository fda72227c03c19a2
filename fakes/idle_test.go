package fakes_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/idemspec/idemspec/fakes"
)

// fake:reference?idle_timeout=D is a server as impatient as Python's
// http.server with a handler timeout: a keep-alive connection idle for D
// is closed, and a request whose body does not come within D of its
// start is answered 400, its body cut short.
func TestIdleTimeoutClosesIdleConnectionsAndCutsSlowBodies(t *testing.T) {
	const idle = 300 * time.Millisecond
	tgt, err := fakes.StartTarget("fake:reference?idle_timeout=" + idle.String())
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close()
	addr := tgt.BaseURL.Host
	body := `{"marker":"idle","amount":1}`
	head := func(length int) string {
		return fmt.Sprintf("POST /resources HTTP/1.1\r\nHost: %s\r\nIdempotency-Key: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n",
			addr, fmt.Sprintf("idle-%d", time.Now().UnixNano()), length)
	}

	t.Run("an idle connection is closed", func(t *testing.T) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(c, head(len(body))+body)
		r := bufio.NewReader(c)
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("status %d, want 201", resp.StatusCode)
		}
		answered := time.Now()
		if _, err := r.ReadByte(); err != io.EOF {
			t.Fatalf("read on the idle connection: %v, want EOF (the server closes it)", err)
		}
		if waited := time.Since(answered); waited < idle/2 {
			t.Errorf("closed %s after the answer, want about %s", waited, idle)
		}
	})

	t.Run("a body slower than the timeout is cut", func(t *testing.T) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(c, head(len(body))+body[:5]) // the rest never comes
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("status %d, want 400 for a body cut short", resp.StatusCode)
		}
	})
}
