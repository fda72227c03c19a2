package fakes_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/idemspec/idemspec/fakes"
)

// TestStopWithoutDrainCutsTheAnswer: a server that does not drain sends
// an answer's head before its body (with its log on, as `idemspec serve`
// runs it), and a stop while the body waits cuts the answer; the record
// was committed before the head left, so the retry is a replay of the
// one resource. The body waits a minute here, so the stop lands first
// whatever the machine's load.
func TestStopWithoutDrainCutsTheAnswer(t *testing.T) {
	in := start(t, fakes.Options{NoDrain: true, BodyLag: time.Minute, Log: io.Discard})
	const key, marker = "no-drain-1", "idemspec-nodrain-1"
	conn, err := net.Dial("tcp", in.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// A bound, not a timing: a head that never comes fails the test.
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	body := fmt.Sprintf(`{"marker":%q,"amount":1}`, marker)
	fmt.Fprintf(conn, "POST /resources HTTP/1.1\r\nHost: x\r\nIdempotency-Key: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", key, len(body), body)
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatalf("no head before the body: %v", err)
	}
	if resp.StatusCode != http.StatusCreated || resp.ContentLength <= 0 {
		t.Fatalf("head: %d, length %d", resp.StatusCode, resp.ContentLength)
	}
	if err := in.Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(resp.Body); err == nil || len(got) != 0 {
		t.Fatalf("after the stop: body %q, %v; want it cut (unexpected EOF)", got, err)
	}
	// The record survived (its answer is stored, replayed to a retry),
	// and there is one resource; both read without a create's answer,
	// whose body would wait its minute.
	if state := keyState(t, in, key); state != "complete" {
		t.Errorf("key %s after the restart, want complete", state)
	}
	if n := resources(t, in, marker); n != 1 {
		t.Errorf("%d resources for the key, want 1", n)
	}
}
