package harness_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/idemspec/idemspec/harness"
)

func TestReorderJSON(t *testing.T) {
	tests := []struct {
		body, want string
		ok         bool
	}{
		{`{"marker":"m","amount":100}`, `{"amount":100,"marker":"m"}`, true},
		{`{"a":1,"b":{"y":2,"x":[1, 2]},"c":"s p"}`, `{"c":"s p","b":{"y":2,"x":[1, 2]},"a":1}`, true},
		{`{"a":9007199254740993,"b":1.50}`, `{"b":1.50,"a":9007199254740993}`, true},
		{`{"only":1}`, "", false},
		{`[1,2]`, "", false},
		{`<xml/>`, "", false},
		{`{"a":1,"a":2}`, "", false},
	}
	for _, tc := range tests {
		got, ok := harness.ReorderJSON([]byte(tc.body))
		if ok != tc.ok || string(got) != tc.want {
			t.Errorf("ReorderJSON(%s) = %s, %t; want %s, %t", tc.body, got, ok, tc.want, tc.ok)
		}
		if ok {
			sameJSON(t, tc.body, string(got))
		}
	}
}

func TestReindent(t *testing.T) {
	tests := []struct {
		body string
		ok   bool
	}{
		{`{"marker":"m","amount":100}`, true},
		{"{\n  \"marker\": \"m\"\n}", true}, // already indented: compacted instead
		{`not json`, false},
		{`7`, false}, // a number has no whitespace to vary
	}
	for _, tc := range tests {
		got, ok := harness.Reindent([]byte(tc.body))
		if ok != tc.ok {
			t.Errorf("Reindent(%q) ok = %t, want %t", tc.body, ok, tc.ok)
			continue
		}
		if ok {
			if string(got) == tc.body {
				t.Errorf("Reindent(%q) returned the same bytes", tc.body)
			}
			sameJSON(t, tc.body, string(got))
		}
	}
}

// sameJSON fails when a and b are not the same JSON value.
func sameJSON(t *testing.T, a, b string) {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal([]byte(a), &va); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(b), &vb); err != nil {
		t.Fatalf("%q is not JSON: %v", b, err)
	}
	if !reflect.DeepEqual(va, vb) {
		t.Errorf("%s and %s are different values", a, b)
	}
}
