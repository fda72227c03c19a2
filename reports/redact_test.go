package reports_test

import (
	"bytes"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/harness/check"
	"github.com/idemspec/idemspec/reports"
)

const planted = "tok-3f9a-planted"

// plant puts the secret in every string value the report type can hold:
// every field, every slice (one element), every map value (one entry).
// Built by reflection, so it covers fields added after this test was
// written. The report's structure is left alone, as Redact leaves it:
// map keys, named string types, the catalogue's checks, the tool and the
// fields tagged redact:"-".
func plant(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if v.Type() == reflect.TypeFor[string]() {
			v.SetString("before " + planted + " after")
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[check.Entry]() || v.Type() == reflect.TypeFor[reports.Tool]() {
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Field(i).CanSet() && v.Type().Field(i).Tag.Get("redact") != "-" {
				plant(v.Field(i))
			}
		}
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		plant(s.Index(0))
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		k.SetString("Content-Type")
		plant(e)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		plant(p.Elem())
		v.Set(p)
	}
}

// A secret that occurs in the report's own structure (here "e", which
// is in the schema, in check titles, in verdicts and header names) is
// never redacted there: the report stays readable and says what it said.
func TestRedactNeverTouchesStructure(t *testing.T) {
	r := syntheticReport()
	red := reports.Redact(r, func(s string) string { return strings.ReplaceAll(s, "e", "[redacted]") })
	if red.Schema != reports.Schema || red.Tool != r.Tool {
		t.Errorf("schema %q, tool %+v: redacted", red.Schema, red.Tool)
	}
	for i, c := range red.Checks {
		if c.Entry != r.Checks[i].Entry || c.Verdict != r.Checks[i].Verdict {
			t.Errorf("check %+v became %+v", r.Checks[i].Entry, c.Entry)
		}
		for _, x := range c.Evidence.History {
			for k := range x.Headers {
				if strings.Contains(k, "[redacted]") {
					t.Errorf("header name %q redacted", k)
				}
			}
		}
	}
	path := filepath.Join(t.TempDir(), "report.json")
	if err := reports.WriteFileAtomic(path, func(w io.Writer) error { return reports.WriteJSON(w, red) }); err != nil {
		t.Fatal(err)
	}
	if _, err := reports.ReadJSON(path); err != nil {
		t.Errorf("the redacted report cannot be read back: %v", err)
	}
}

func TestRedactReachesEveryString(t *testing.T) {
	var r reports.Report
	plant(reflect.ValueOf(&r).Elem())
	red := reports.Redact(r, func(s string) string { return strings.ReplaceAll(s, planted, "[redacted]") })
	for _, w := range reports.Writers {
		var b bytes.Buffer
		if err := w.Render(&b, r); err != nil {
			t.Fatalf("%s: %v", w.File, err)
		}
		if !strings.Contains(b.String(), planted) {
			t.Errorf("%s of the planted report does not show the secret: the test plants nothing", w.File)
		}
		b.Reset()
		if err := w.Render(&b, red); err != nil {
			t.Fatalf("%s: %v", w.File, err)
		}
		if strings.Contains(b.String(), planted) {
			t.Errorf("%s of the redacted report shows the secret", w.File)
		}
		if !strings.Contains(b.String(), "[redacted]") {
			t.Errorf("%s of the redacted report shows no [redacted]", w.File)
		}
	}
	// The original is untouched: Redact copies.
	if r.Checks[0].Evidence.History[0].Body != "before "+planted+" after" {
		t.Error("Redact changed its argument")
	}
	for _, v := range r.Checks[0].Evidence.History[0].Headers {
		if !strings.Contains(v, planted) {
			t.Error("Redact changed its argument's map")
		}
	}
}
