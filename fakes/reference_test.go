package fakes_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemspec/idemspec/fakes"
	"github.com/idemspec/idemspec/internal/testenv"
)

// The reference server is the yardstick of the detection matrix, so its
// own behaviour is tested directly, without the harness in between.

type answer struct {
	status int
	header http.Header
	body   map[string]any
}

func post(t *testing.T, base, key, body string, extra ...string) answer {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/resources", strings.NewReader(body))
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	for i := 0; i+1 < len(extra); i += 2 {
		req.Header.Add(extra[i], extra[i+1])
	}
	return do(t, req)
}

func get(t *testing.T, url string, extra ...string) answer {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for i := 0; i+1 < len(extra); i += 2 {
		req.Header.Add(extra[i], extra[i+1])
	}
	return do(t, req)
}

func do(t *testing.T, req *http.Request) answer {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, header: resp.Header}
	json.Unmarshal(raw, &a.body)
	return a
}

func start(t *testing.T, opts fakes.Options) *fakes.Instance {
	t.Helper()
	in, err := fakes.Start(opts, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close() })
	return in
}

func items(a answer) []any {
	list, _ := a.body["items"].([]any)
	return list
}

func TestReferenceSemantics(t *testing.T) {
	in := start(t, fakes.Options{Delay: time.Millisecond})
	body := `{"marker":"m1","amount":1}`

	first := post(t, in.URL, "k1", body)
	if first.status != http.StatusCreated || first.body["id"] == "" || first.header.Get("Location") == "" {
		t.Fatalf("first create: %d %v %v", first.status, first.body, first.header)
	}
	again := post(t, in.URL, "k1", body)
	if again.status != http.StatusCreated || again.body["id"] != first.body["id"] || again.header.Get(fakes.ReplayHeader) != "true" {
		t.Fatalf("replay: %d %v replayed=%q", again.status, again.body, again.header.Get(fakes.ReplayHeader))
	}
	if again.header.Get("Location") != first.header.Get("Location") {
		t.Errorf("replay Location %q, original %q", again.header.Get("Location"), first.header.Get("Location"))
	}
	if m := post(t, in.URL, "k1", `{"marker":"m1","amount":2}`); m.status != http.StatusUnprocessableEntity {
		t.Errorf("mismatch: %d, want 422", m.status)
	}
	if m := post(t, in.URL, "", body); m.status != http.StatusBadRequest {
		t.Errorf("missing key: %d, want 400", m.status)
	}
	if m := post(t, in.URL, "k2", body, "Idempotency-Key", "k3"); m.status != http.StatusBadRequest {
		t.Errorf("two key headers: %d, want 400", m.status)
	}
	if m := post(t, in.URL, strings.Repeat("k", 256), body); m.status != http.StatusBadRequest {
		t.Errorf("256-character key: %d, want 400", m.status)
	}
	if n := len(items(get(t, in.URL+"/resources?marker=m1"))); n != 1 {
		t.Errorf("list shows %d resources for m1, want 1", n)
	}
	look := get(t, in.URL+"/idempotency-keys/k1")
	if look.status != http.StatusOK || look.body["resource_id"] != first.body["id"] || look.body["state"] != "complete" {
		t.Errorf("lookup k1: %d %v", look.status, look.body)
	}
	if look := get(t, in.URL+"/idempotency-keys/nope"); look.status != http.StatusNotFound {
		t.Errorf("lookup of an unknown key: %d, want 404", look.status)
	}
	if res := get(t, in.URL+first.header.Get("Location")); res.status != http.StatusOK || res.body["id"] != first.body["id"] {
		t.Errorf("GET Location: %d %v", res.status, res.body)
	}
}

func TestReferenceScopesKeysByTenant(t *testing.T) {
	in := start(t, fakes.Options{Delay: time.Millisecond})
	body := `{"marker":"mt","amount":1}`
	a := post(t, in.URL, "shared", body, "Authorization", "Bearer alice")
	b := post(t, in.URL, "shared", body, "Authorization", "Bearer bob")
	if a.status != http.StatusCreated || b.status != http.StatusCreated || a.body["id"] == b.body["id"] {
		t.Fatalf("two tenants, one key: %d %v / %d %v", a.status, a.body["id"], b.status, b.body["id"])
	}
	if n := len(items(get(t, in.URL+"/resources?marker=mt", "Authorization", "Bearer alice"))); n != 1 {
		t.Errorf("alice sees %d resources, want her 1", n)
	}
}

// TestReferenceInFlightThenReplay: while the first request with a key is
// still working, a duplicate gets 409 with Retry-After, never a second
// execution; afterwards it gets the replay.
func TestReferenceInFlightThenReplay(t *testing.T) {
	// The first request works for 5 s: its duplicate is sent as soon as
	// the key shows claimed, and even a machine running two test suites
	// sends it well inside that.
	in := start(t, fakes.Options{Delay: 5 * time.Second})
	body := `{"marker":"mi","amount":1}`
	var wg sync.WaitGroup
	var first answer
	wg.Add(1)
	go func() {
		defer wg.Done()
		first = post(t, in.URL, "busy", body)
	}()
	// Await the claim rather than sleeping: the lookup shows it in flight.
	testenv.WaitFor(t, "the first request claimed its key", func() bool {
		return get(t, in.URL+"/idempotency-keys/busy").status == http.StatusOK
	})
	dup := post(t, in.URL, "busy", body)
	wg.Wait()
	if dup.status != http.StatusConflict || dup.header.Get("Retry-After") == "" {
		t.Errorf("duplicate in flight: %d Retry-After=%q, want 409 with Retry-After", dup.status, dup.header.Get("Retry-After"))
	}
	if after := post(t, in.URL, "busy", body); after.status != http.StatusCreated || after.body["id"] != first.body["id"] {
		t.Errorf("after completion: %d %v, want the replay of %v", after.status, after.body["id"], first.body["id"])
	}
	if n := len(items(get(t, in.URL+"/resources?marker=mi"))); n != 1 {
		t.Errorf("%d resources, want 1", n)
	}
}

// TestReferenceSurvivesReopen: key records live in the database file.
func TestReferenceSurvivesReopen(t *testing.T) {
	db := t.TempDir() + "/ref.db"
	in, err := fakes.Start(fakes.Options{DBPath: db, Delay: time.Millisecond}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	first := post(t, in.URL, "durable", `{"marker":"md","amount":1}`)
	in.Close()
	in2 := start(t, fakes.Options{DBPath: db, Delay: time.Millisecond})
	again := post(t, in2.URL, "durable", `{"marker":"md","amount":1}`)
	if again.status != http.StatusCreated || again.body["id"] != first.body["id"] {
		t.Fatalf("after reopening: %d %v, want the replay of %v", again.status, again.body["id"], first.body["id"])
	}
}

func TestUnknownMutantIsAnError(t *testing.T) {
	if _, err := fakes.Open(fakes.Options{Mutant: "no-such-bug"}); err == nil || !strings.Contains(err.Error(), "known: reference") {
		t.Fatalf("err = %v, want the list of known fakes", err)
	}
}
