package wire_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/idemspec/idemspec/harness/wire"
)

// A program that floods the interposer (creates of 64 KiB, 5 times the
// bodies the record keeps) has every exchange counted, with its key,
// hash, status and id, and at most KeepFirst+KeepLast of them keep a
// header and bodies: the record's memory does not grow with the flood.
func TestRecordKeepsBoundedBodiesOfAFlood(t *testing.T) {
	a := newAPI(t)
	ip := start(t, a, wire.Config{})
	rec := ip.Record()
	const n = 5 * (wire.KeepFirst + wire.KeepLast)
	body := bytes.Repeat([]byte("x"), 64<<10)
	flood := func(from, count int) {
		var wg sync.WaitGroup
		sem := make(chan struct{}, 4)
		for i := from; i < from+count; i++ {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				if _, err := program(t, context.Background(), http.MethodPost, ip.URL()+"/charges", fmt.Sprintf("k-%d", i), string(body)); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
	}
	kept := func() (whole, bytes int) {
		for _, x := range rec.Exchanges() {
			if x.Header != nil || x.Body != nil || x.Answer != nil {
				whole++
			}
			bytes += len(x.Body) + len(x.Answer)
		}
		return whole, bytes
	}
	flood(0, n)
	xs := rec.Exchanges()
	if len(xs) != n || len(rec.CreatedIDs("charge")) != n {
		t.Fatalf("recorded %d exchanges and %d ids, want %d of each", len(xs), len(rec.CreatedIDs("charge")), n)
	}
	for _, x := range xs {
		if x.Key == "" || x.PayloadHash == "" || x.Status != 201 || x.ResourceID == "" {
			t.Fatalf("exchange %d lost a fact: %+v", x.Seq, x)
		}
		if x.Elided != (x.Body == nil) {
			t.Fatalf("exchange %d: Elided %v with a body of %d bytes", x.Seq, x.Elided, len(x.Body))
		}
	}
	whole, size := kept()
	if whole != wire.KeepFirst+wire.KeepLast || rec.Elided() != n-whole {
		t.Errorf("%d exchanges keep bodies, %d elided; want %d and %d", whole, rec.Elided(), wire.KeepFirst+wire.KeepLast, n-wire.KeepFirst-wire.KeepLast)
	}
	if limit := (wire.KeepFirst + wire.KeepLast) * 2 * wire.MaxKept; size > limit {
		t.Errorf("the record keeps %d bytes of bodies, over %d", size, limit)
	}
	for i, x := range xs[:wire.KeepFirst] {
		if x.Elided || !bytes.Equal(x.Body, body) {
			t.Fatalf("exchange %d, of the first %d, lost its body", i+1, wire.KeepFirst)
		}
	}
	// A new window (the next trial's run): the one before loses its
	// bodies, and the new one's first exchanges keep theirs.
	from := rec.Mark()
	flood(n, n)
	whole, _ = kept()
	if whole != wire.KeepFirst+wire.KeepLast {
		t.Errorf("after a second window, %d exchanges keep bodies, want %d", whole, wire.KeepFirst+wire.KeepLast)
	}
	if second := rec.Since(from); second[0].Elided || second[len(second)-1].Elided {
		t.Error("the second window's first or last exchange lost its body")
	}
}
