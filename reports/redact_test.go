package reports_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/reports"
)

const planted = "tok-3f9a-planted"

// plant puts the secret in every string the report type can hold: every
// field, every slice (one element), every map (one entry). Built by
// reflection, so it covers fields added after this test was written.
func plant(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("before " + planted + " after")
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Field(i).CanSet() {
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
		plant(k)
		plant(e)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		plant(p.Elem())
		v.Set(p)
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
	for k := range r.Checks[0].Evidence.History[0].Headers {
		if !strings.Contains(k, planted) {
			t.Error("Redact changed its argument's map")
		}
	}
}
