package fakes_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/fakes"
)

// server starts a fake (reference or mutant) with a convention.
func server(t *testing.T, mutant string, conv *fakes.Convention) *httptest.Server {
	t.Helper()
	s, err := fakes.Open(fakes.Options{Mutant: mutant, Convention: conv, Delay: 1})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() { ts.Close(); s.Close() })
	return ts
}

// post sends one create; header pairs follow the body.
func post(t *testing.T, ts *httptest.Server, body string, header ...string) (int, http.Header, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, ts.URL+"/resources", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc map[string]any
	json.NewDecoder(resp.Body).Decode(&doc)
	return resp.StatusCode, resp.Header, doc
}

// count asks the list endpoint how many resources carry marker.
func count(t *testing.T, ts *httptest.Server, marker string) int {
	t.Helper()
	resp, err := http.Get(ts.URL + "/resources?marker=" + marker)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct{ Items []any }
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	return len(doc.Items)
}

const key = "8e03978e-40d5-43e8-bc93-6894a57f9324"

func TestFailedAttempt(t *testing.T) {
	released := fakes.IETF
	released.StoreFailures = false
	tests := []struct {
		name, mutant string
		conv         *fakes.Convention
		retry        int // the retry's status
		resources    int
		replayMarked bool
	}{
		{name: "reference: stored and replayed", conv: nil, retry: 503, resources: 0, replayMarked: true},
		{name: "reference: released, retried afresh", conv: &released, retry: 201, resources: 1},
		{name: "commit-before-fail, stored", mutant: "commit-before-fail", retry: 503, resources: 1, replayMarked: true},
		{name: "commit-before-fail, released", mutant: "commit-before-fail", conv: &released, retry: 201, resources: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ts := server(t, tc.mutant, tc.conv)
			body := `{"marker":"m1","amount":1}`
			if status, _, _ := post(t, ts, body, "Idempotency-Key", key, fakes.FailHeader, "503"); status != 503 {
				t.Fatalf("first attempt: %d, want the injected 503", status)
			}
			status, h, _ := post(t, ts, body, "Idempotency-Key", key)
			if status != tc.retry {
				t.Errorf("retry: %d, want %d", status, tc.retry)
			}
			if marked := h.Get(fakes.ReplayHeader) == "true"; marked != tc.replayMarked {
				t.Errorf("retry marked as a replay: %t, want %t", marked, tc.replayMarked)
			}
			if n := count(t, ts, "m1"); n != tc.resources {
				t.Errorf("%d resources, want %d", n, tc.resources)
			}
		})
	}
}

func TestFailHeaderIgnoresNon5xx(t *testing.T) {
	ts := server(t, "", nil)
	if status, _, _ := post(t, ts, `{"marker":"m2"}`, "Idempotency-Key", key, fakes.FailHeader, "200"); status != 201 {
		t.Errorf("status %d: a fail header outside 500-599 must be ignored", status)
	}
}

func TestConventionCodes(t *testing.T) {
	brandur := &fakes.Convention{Mismatch: 409, InFlight: 409, MissingKey: 400}
	optional := &fakes.Convention{Mismatch: 400, InFlight: 409, MissingKey: 400, KeyOptional: true, ReplayHeader: "Idempotent-Replayed"}
	tests := []struct {
		name, mutant string
		conv         *fakes.Convention
		missing      int // a create without a key
		mismatch     int // the key again with another payload
		marker       string
	}{
		{name: "ietf", missing: 400, mismatch: 422},
		{name: "brandur", conv: brandur, missing: 400, mismatch: 409},
		{name: "key optional", conv: optional, missing: 201, mismatch: 400},
		{name: "missing-key-422", mutant: "missing-key-422", missing: 422, mismatch: 422},
		{name: "key-optional mutant", mutant: "key-optional", missing: 201, mismatch: 422},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ts := server(t, tc.mutant, tc.conv)
			if status, _, _ := post(t, ts, `{"marker":"m3"}`); status != tc.missing {
				t.Errorf("no key: %d, want %d", status, tc.missing)
			}
			if status, _, _ := post(t, ts, `{"marker":"m4","amount":1}`, "Idempotency-Key", key); status != 201 {
				t.Fatalf("create: %d", status)
			}
			if status, _, _ := post(t, ts, `{"marker":"m4","amount":2}`, "Idempotency-Key", key); status != tc.mismatch {
				t.Errorf("mismatch: %d, want %d", status, tc.mismatch)
			}
		})
	}
}

func TestKeyMutants(t *testing.T) {
	tests := []struct {
		mutant string
		header []string
		want   int
	}{
		{"", []string{"Idempotency-Key", "not a uuid"}, 400},
		{"uuid-only-500", []string{"Idempotency-Key", "not-a-uuid"}, 500},
		{"uuid-only-500", []string{"Idempotency-Key", key}, 201},
		{"", []string{"Idempotency-Key", key, "Idempotency-Key", "another"}, 400},
		{"first-of-duplicate-keys", []string{"Idempotency-Key", key, "Idempotency-Key", "another"}, 201},
	}
	for _, tc := range tests {
		ts := server(t, tc.mutant, nil)
		if status, _, _ := post(t, ts, `{"marker":"m5"}`, tc.header...); status != tc.want {
			t.Errorf("%s with %q: %d, want %d", or(tc.mutant, "reference"), tc.header, status, tc.want)
		}
	}
}

func or(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}
