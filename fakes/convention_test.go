package fakes_test

import (
	"strings"
	"testing"
	"time"

	"github.com/idemspec/idemspec/fakes"
)

// withConvention starts a fake (reference or mutant) under a convention.
func withConvention(t *testing.T, mutant string, conv *fakes.Convention) string {
	t.Helper()
	return start(t, fakes.Options{Mutant: mutant, Convention: conv, Delay: time.Millisecond}).URL
}

// count asks the list endpoint how many resources carry marker.
func count(t *testing.T, base, marker string) int {
	t.Helper()
	return len(items(get(t, base+"/resources?marker="+marker)))
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
			base := withConvention(t, tc.mutant, tc.conv)
			body := `{"marker":"m1","amount":1}`
			if a := post(t, base, key, body, fakes.FailHeader, "503"); a.status != 503 {
				t.Fatalf("first attempt: %d, want the injected 503", a.status)
			}
			a := post(t, base, key, body)
			if a.status != tc.retry {
				t.Errorf("retry: %d, want %d", a.status, tc.retry)
			}
			if marked := a.header.Get(fakes.ReplayHeader) == "true"; marked != tc.replayMarked {
				t.Errorf("retry marked as a replay: %t, want %t", marked, tc.replayMarked)
			}
			if n := count(t, base, "m1"); n != tc.resources {
				t.Errorf("%d resources, want %d", n, tc.resources)
			}
		})
	}
}

func TestFailHeaderIgnoresNon5xx(t *testing.T) {
	base := withConvention(t, "", nil)
	if a := post(t, base, key, `{"marker":"m2"}`, fakes.FailHeader, "200"); a.status != 201 {
		t.Errorf("status %d: a fail header outside 500-599 must be ignored", a.status)
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
			base := withConvention(t, tc.mutant, tc.conv)
			if a := post(t, base, "", `{"marker":"m3"}`); a.status != tc.missing {
				t.Errorf("no key: %d, want %d", a.status, tc.missing)
			}
			if a := post(t, base, key, `{"marker":"m4","amount":1}`); a.status != 201 {
				t.Fatalf("create: %d", a.status)
			}
			if a := post(t, base, key, `{"marker":"m4","amount":2}`); a.status != tc.mismatch {
				t.Errorf("mismatch: %d, want %d", a.status, tc.mismatch)
			}
		})
	}
}

func TestKeyMutants(t *testing.T) {
	tests := []struct {
		mutant, key string
		extra       []string // more headers
		want        int
	}{
		{"", "not a uuid", nil, 400},
		{"uuid-only-500", "not-a-uuid", nil, 500},
		{"uuid-only-500", key, nil, 201},
		{"", key, []string{"Idempotency-Key", "another"}, 400},
		{"", strings.Repeat("k", 256), nil, 400},
		{"unbounded-key-length", strings.Repeat("k", 1024), nil, 201},
		{"unbounded-key-length", "", nil, 400},
	}
	for _, tc := range tests {
		base := withConvention(t, tc.mutant, nil)
		if a := post(t, base, tc.key, `{"marker":"m5"}`, tc.extra...); a.status != tc.want {
			t.Errorf("%s with key %q and %q: %d, want %d", or(tc.mutant, "reference"), tc.key, tc.extra, a.status, tc.want)
		}
	}
	// Taking the first of two key headers is the reference's option, not
	// a mutant: the draft leaves it to the server.
	base := start(t, fakes.Options{FirstOfDuplicateKeys: true, Delay: time.Millisecond}).URL
	if a := post(t, base, key, `{"marker":"m6"}`, "Idempotency-Key", "another"); a.status != 201 {
		t.Errorf("duplicate_keys=first with two key headers: %d, want 201", a.status)
	}
}

func or(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}
