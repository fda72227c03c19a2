package exactjson_test

import (
	"encoding/json"
	"testing"

	"github.com/idemspec/idemspec/internal/exactjson"
)

func TestDecodeKeepsNumbersAsWritten(t *testing.T) {
	v, err := exactjson.Decode([]byte(`{"id": 9007199254740993, "n": 12345678}`))
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	if m["id"] != json.Number("9007199254740993") || m["n"] != json.Number("12345678") {
		t.Errorf("decoded %v, want the numbers as written", m)
	}
}

func TestDecodeRefusesTrailingData(t *testing.T) {
	for _, in := range []string{`{"a":1} {"b":2}`, `1 2`, `{"a":1}x`, ``, `{`} {
		if _, err := exactjson.Decode([]byte(in)); err == nil {
			t.Errorf("Decode(%q) = nil error, want one", in)
		}
	}
	if _, err := exactjson.Decode([]byte(" {\"a\": 1}\n")); err != nil {
		t.Errorf("a value between white space: %v", err)
	}
}
