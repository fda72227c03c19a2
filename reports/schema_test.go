package reports_test

import (
	"encoding"
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/reports"
)

// The JSON schema is a promise to everyone who parses report.json, so
// docs/REPORT-SCHEMA.md documents every field. The fields are read from
// the Go types (json tags, embedded structs inlined), not from a sample,
// so a field someone adds to the evidence next month fails this test
// until it is documented, and a documented field that is gone fails too.

// jsonPaths lists the dotted paths of every field of the JSON report:
// "run.seed", "checks[].evidence.history[].status".
func jsonPaths() []string {
	var out []string
	walkJSON(reflect.TypeFor[reports.Report](), "", &out)
	slices.Sort(out)
	return out
}

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

func walkJSON(t reflect.Type, prefix string, out *[]string) {
	if t.Implements(jsonMarshaler) || t.Implements(textMarshaler) {
		return // a leaf with its own encoding (time.Time)
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		suffix := "[]"
		if t.Kind() == reflect.Pointer {
			suffix = ""
		}
		walkJSON(t.Elem(), prefix+suffix, out)
	case reflect.Map:
		walkJSON(t.Elem(), prefix+".*", out)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if f.Anonymous && name == "" {
				walkJSON(f.Type, prefix, out)
				continue
			}
			if name == "" {
				name = f.Name
			}
			p := name
			if prefix != "" {
				p = prefix + "." + name
			}
			*out = append(*out, p)
			walkJSON(f.Type, p, out)
		}
	}
}

// documentedPaths reads the first column of the schema document's
// tables: | `run.seed` | ... |
func documentedPaths(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../docs/REPORT-SCHEMA.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+)` \\|").FindAllStringSubmatch(string(b), -1) {
		out = append(out, m[1])
	}
	slices.Sort(out)
	return out
}

func TestSchemaDocumentsEveryField(t *testing.T) {
	fields, documented := jsonPaths(), documentedPaths(t)
	for _, f := range fields {
		if !slices.Contains(documented, f) {
			t.Errorf("report field %q is not documented in docs/REPORT-SCHEMA.md", f)
		}
	}
	for _, d := range documented {
		if !slices.Contains(fields, d) {
			t.Errorf("docs/REPORT-SCHEMA.md documents %q, which the report does not have", d)
		}
	}
	if len(fields) < 40 {
		t.Errorf("only %d fields found: the walk over the report type is broken", len(fields))
	}
}
