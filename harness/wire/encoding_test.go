package wire_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/idemspec/idemspec/harness/wire"
	"github.com/idemspec/idemspec/targets"
)

func gzipped(t *testing.T, s string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// An API that compresses its answers for a program that asks: idemspec
// reads the id from the decoded answer (a replay of one create is one
// resource, not two), and the program gets the bytes the API sent.
func TestGzipAnswerIsReadDecodedAndDeliveredAsSent(t *testing.T) {
	sent := gzipped(t, `{"charge":{"id":"ch_1"}}`)
	ip := interposeCharges(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.Header.Get("Accept-Encoding") != "gzip" {
			t.Errorf("the API was asked for %q, want the program's own Accept-Encoding", r.Header.Get("Accept-Encoding"))
		}
		w.Header().Set("Content-Encoding", "gzip")
		w.WriteHeader(http.StatusCreated)
		w.Write(sent)
	}, func(b []byte) string { return targets.ResourceIDOf(b, "charge.id") })
	for range 2 {
		req, _ := http.NewRequestWithContext(bounded(t), http.MethodPost, ip.URL()+"/charges", bytes.NewBufferString(`{}`))
		req.Header.Set("Idempotency-Key", "k-1")
		req.Header.Set("Accept-Encoding", "gzip") // set by hand: Go's client leaves the body as it came
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if !bytes.Equal(got, sent) || res.Header.Get("Content-Encoding") != "gzip" {
			t.Errorf("the program got %q (Content-Encoding %q), want the API's gzip bytes", got, res.Header.Get("Content-Encoding"))
		}
	}
	if ids := ip.Record().CreatedIDs("charge"); len(ids) != 1 || ids[0] != "ch_1" {
		t.Errorf("CreatedIDs = %v, want [ch_1] (two answers carrying one id)", ids)
	}
	if x := ip.Record().Exchanges()[0]; string(x.Answer) != `{"charge":{"id":"ch_1"}}` || x.Problem != "" {
		t.Errorf("recorded answer %q, problem %q", x.Answer, x.Problem)
	}
}

// An answer that decodes past MaxBody is not read whole: a bomb costs
// idemspec what a large answer does, and the record says so.
func TestGzipBombIsReadNoFurtherThanTheBodyCap(t *testing.T) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zero := make([]byte, 1<<20)
	for range wire.MaxBody>>20 + 1 {
		zw.Write(zero)
	}
	zw.Close()
	bomb := b.Bytes()
	ip := interposeCharges(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.WriteHeader(http.StatusCreated)
		w.Write(bomb)
	}, nil)
	if _, err := program(t, context.Background(), http.MethodPost, ip.URL()+"/charges", "k", `{}`); err != nil {
		t.Fatal(err)
	}
	if x := ip.Record().Exchanges()[0]; x.Problem == "" || x.Status != 201 {
		t.Errorf("exchange %+v, want the bomb noted", x.Problem)
	}
}

// A request body the program compressed is read decoded for the record
// and the payload's hash (the same payload hashes alike either way),
// and reaches the API as the program sent it.
func TestGzipRequestIsReadDecodedAndForwardedAsSent(t *testing.T) {
	sent := gzipped(t, `{"amount":1}`)
	got := make(chan []byte, 2)
	ip := interposeCharges(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- b
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"charge":{"id":"ch_1"}}`)
	}, nil)
	req, _ := http.NewRequestWithContext(bounded(t), http.MethodPost, ip.URL()+"/charges", bytes.NewReader(sent))
	req.Header.Set("Idempotency-Key", "k-1")
	req.Header.Set("Content-Encoding", "gzip")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if _, err := program(t, context.Background(), http.MethodPost, ip.URL()+"/charges", "k-1", `{"amount":1}`); err != nil {
		t.Fatal(err)
	}
	if first := <-got; !bytes.Equal(first, sent) {
		t.Errorf("the API got %q, want the program's gzip bytes", first)
	}
	xs := ip.Record().Exchanges()
	if string(xs[0].Body) != `{"amount":1}` || xs[0].PayloadHash != xs[1].PayloadHash || xs[0].Shape != "amount" {
		t.Errorf("the compressed request was recorded as %q (hash %s, the plain one's %s)", xs[0].Body, xs[0].PayloadHash, xs[1].PayloadHash)
	}
}

// interposeCharges starts an API that answers with handler and an
// interposer before it knowing one operation, the create POST /charges
// keyed by its Idempotency-Key header (its id read by idOf, if any);
// both stop when the test ends.
func interposeCharges(t *testing.T, handler http.HandlerFunc, idOf func([]byte) string) *wire.Interposer {
	t.Helper()
	api := httptest.NewServer(handler)
	t.Cleanup(api.Close)
	base, _ := url.Parse(api.URL)
	ip, err := wire.Start(wire.Config{Base: base, Operations: []wire.Operation{{Name: "charge", Kind: wire.Create, Path: "/charges", KeyOf: keyInHeader, IDOf: idOf}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ip.Close() })
	return ip
}
