package fakes_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/fakes"
)

// With key_in=body the reference reads Square's idempotency_key field:
// a replay, a mismatch and a missing key behave as with the header, and
// the header is ignored.
func TestReferenceTakesTheKeyFromTheBody(t *testing.T) {
	in := start(t, fakes.Options{Delay: time.Millisecond, KeyIn: fakes.KeyInBody})
	body := func(key string, amount string) string {
		return `{"marker":"m1","amount":` + amount + `,"idempotency_key":"` + key + `"}`
	}
	first := post(t, in.URL, "", body("k1", "1"))
	if first.status != http.StatusCreated {
		t.Fatalf("first create: %d %v", first.status, first.body)
	}
	if again := post(t, in.URL, "", body("k1", "1")); again.status != http.StatusCreated || again.body["id"] != first.body["id"] {
		t.Errorf("replay: %d %v, want %v", again.status, again.body, first.body["id"])
	}
	if m := post(t, in.URL, "", body("k1", "2")); m.status != http.StatusUnprocessableEntity {
		t.Errorf("mismatch: %d, want 422", m.status)
	}
	m := post(t, in.URL, "k9", `{"marker":"m1","amount":1}`)
	if detail, _ := m.body["detail"].(string); m.status != http.StatusBadRequest || !strings.Contains(detail, "body field idempotency_key") {
		t.Errorf("a key in the header only: %d %v, want 400 naming the body field", m.status, m.body)
	}
	if m := post(t, in.URL, "", body("", "1")); m.status != http.StatusBadRequest {
		t.Errorf("empty key: %d, want 400", m.status)
	}
}

// With key_in=query the reference reads the idempotency_key parameter.
func TestReferenceTakesTheKeyFromTheQuery(t *testing.T) {
	in := start(t, fakes.Options{Delay: time.Millisecond, KeyIn: fakes.KeyInQuery})
	send := func(query, body string) answer {
		req, _ := http.NewRequest(http.MethodPost, in.URL+"/resources"+query, strings.NewReader(body))
		return do(t, req)
	}
	first := send("?idempotency_key=k1", `{"marker":"m1","amount":1}`)
	if again := send("?idempotency_key=k1", `{"marker":"m1","amount":1}`); first.status != http.StatusCreated || again.body["id"] != first.body["id"] {
		t.Errorf("create %d %v, replay %d %v", first.status, first.body, again.status, again.body)
	}
	if m := send("", `{"marker":"m1","amount":1}`); m.status != http.StatusBadRequest {
		t.Errorf("missing key: %d, want 400", m.status)
	}
}

func TestUnknownKeyPlaceIsRefused(t *testing.T) {
	if _, err := fakes.Open(fakes.Options{KeyIn: "cookie"}); err == nil || !strings.Contains(err.Error(), "key_in") {
		t.Errorf("Open with key_in=cookie: %v", err)
	}
}
