package agent_test

import (
	"testing"

	"github.com/idemspec/idemspec/harness/agent"
)

func TestKeyedPutsTheKeyWhereTheServerTakesIt(t *testing.T) {
	payload := []byte(`{"marker":"m","idempotency_key":"{{.Key}}"}`)
	for _, tc := range []struct {
		in, name, wantURL, wantBody, wantHeader string
	}{
		{"header", "Idempotency-Key", "http://s/r", string(payload), `k"1`},
		{"body", "idempotency_key", "http://s/r", `{"marker":"m","idempotency_key":"k\"1"}`, ""},
		{"query", "idempotency_key", "http://s/r?idempotency_key=k%221", string(payload), ""},
	} {
		in := agent.Inputs{ServerURL: "http://s", CreatePath: "/r", KeyIn: tc.in, KeyName: tc.name}
		url, body, header := in.Keyed(`k"1`, payload)
		if url != tc.wantURL || string(body) != tc.wantBody || header.Get("Idempotency-Key") != tc.wantHeader {
			t.Errorf("%s: %s %s %v", tc.in, url, body, header)
		}
	}
}
