package openapi_test

import (
	"os"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/targets"
	"github.com/idemspec/idemspec/targets/openapi"
)

// TestKeyFormatFromTheDocument: the key's schema in the document (its
// pattern, its maxLength) becomes the key's declared format, so K2a
// judges the API's own format; what a target file cannot say becomes a
// TODO, and the file still validates.
func TestKeyFormatFromTheDocument(t *testing.T) {
	data, err := os.ReadFile("testdata/reference.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const schema = "schema: {type: string, maxLength: 255}"
	if !strings.Contains(string(data), schema) {
		t.Fatalf("testdata/reference.yaml no longer declares its key as %q", schema)
	}
	tests := []struct {
		name, schema string
		want         targets.Key // In, Name and Required aside
		todo         string
	}{
		{name: "a pattern and a length", schema: `schema: {type: string, pattern: "[A-Za-z0-9]{24}", maxLength: 64}`,
			want: targets.Key{Format: targets.FormatPattern, Pattern: "[A-Za-z0-9]{24}", Declared: true, MaxLength: 64}},
		{name: "a length only", schema: schema, want: targets.Key{Format: targets.FormatUUID, MaxLength: 255}},
		{name: "nothing", schema: "schema: {type: string}", want: targets.Key{Format: targets.FormatUUID}},
		{name: "a pattern idemspec cannot make keys from", schema: `schema: {type: string, pattern: "^[a-z]+$"}`,
			want: targets.Key{Format: targets.FormatUUID}, todo: `the document's pattern for the key, "^[a-z]+$", cannot be the key's format`},
		{name: "shorter than a UUID", schema: "schema: {type: string, maxLength: 20}",
			want: targets.Key{Format: targets.FormatUUID}, todo: "at most 20 characters, shorter than idemspec's UUID keys"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := openapi.Load("key.yaml", []byte(strings.Replace(string(data), schema, tc.schema, 1)))
			if err != nil {
				t.Fatal(err)
			}
			d := draft(t, doc, openapi.Options{CheckKeyPattern: targets.CheckKeyPattern}, nil, "")
			target, err := targets.Parse("drafted.yaml", d.Text)
			if err != nil {
				t.Fatal(err)
			}
			got := target.Key
			got.In, got.Name, got.Required = "", "", false
			if got != tc.want {
				t.Errorf("key %+v, want %+v\n%s", got, tc.want, d.Text)
			}
			if found := strings.Contains(strings.Join(d.TODOs, "\n"), tc.todo); tc.todo != "" && !found {
				t.Errorf("TODOs %q, want one saying %q", d.TODOs, tc.todo)
			}
		})
	}
}
