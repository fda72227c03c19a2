package wire_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/harness/wire"
)

// The tap records what the API answered on a connection, interim
// answers skipped, requests paired with answers in order, the create's
// id read by its operation; once Settle returns, every answer already
// read is in the record.
func TestTapRecordsWhatTheAPIAnswered(t *testing.T) {
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		n++
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"id":"r%d"}`, n)
	}))
	defer srv.Close()
	ops := []wire.Operation{{Name: "", Kind: wire.Create, Path: "/resources", IDOf: func(b []byte) string {
		_, rest, _ := strings.Cut(string(b), `"id":"`)
		id, _, _ := strings.Cut(rest, `"`)
		return id
	}}}
	tap := wire.NewTap(ops, "")
	raw, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c := tap.Conn(raw)
	defer c.Close()
	// A read cut by a deadline that passed (the lane's answer reader
	// pauses so) is no end of the answers: the stream reads on.
	c.SetReadDeadline(time.Unix(1, 0))
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatal("a read past its deadline returned no error")
	}
	c.SetReadDeadline(time.Time{})
	br := bufio.NewReader(c)
	for i, marker := range []string{"m-1", "m-2"} {
		body := `{"marker":"` + marker + `"}`
		// The second asks to continue first, as a burst's requests do.
		expect := ""
		if i == 1 {
			expect = "Expect: 100-continue\r\n"
		}
		fmt.Fprintf(c, "POST /resources HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\n\r\n%s", expect, len(body), body)
		for {
			res, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, res.Body)
			if res.StatusCode != http.StatusContinue {
				break
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := tap.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	xs := tap.Record().Exchanges()
	if len(xs) != 2 {
		t.Fatalf("%d exchanges, want 2: %+v", len(xs), xs)
	}
	for i, x := range xs {
		want := fmt.Sprintf("r%d", i+1)
		if x.Status != http.StatusCreated || x.ResourceID != want || x.Kind != wire.Create || !x.Done || x.AnsweredBy != wire.AnsweredByAPI {
			t.Errorf("exchange %d: %d %q %s done=%v by %q, want 201 %s", i+1, x.Status, x.ResourceID, x.Kind, x.Done, x.AnsweredBy, want)
		}
	}
	if ids := wire.CreatedIDs(xs, ""); len(ids) != 2 {
		t.Errorf("created ids %v, want two", ids)
	}
}
