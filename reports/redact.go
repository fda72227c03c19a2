package reports

import (
	"reflect"

	"github.com/idemspec/idemspec/harness/check"
)

// Redact returns a copy of r with fn applied to every string value in
// it: target fields, reasons, violations, notes, exchange bodies, errors,
// header values, whatever fields the evidence grows later. Walking the
// model by reflection, rather than naming fields, is what keeps a field
// someone adds next year from leaking a token. Redacting the model (not
// the rendered bytes) also catches a secret that a writer would have
// escaped (JSON's \u003c, HTML's &amp;) or cut in half when truncating.
//
// The report's own structure is never touched, so a secret that happens
// to occur in it cannot make the report unreadable: map keys (header
// names), strings of a named type (verdicts, levels, outcomes), the
// schema, the tool and the catalogue's text of each check (tagged
// redact:"-" or listed in structural) come from idemspec, not the target.
func Redact(r Report, fn func(string) string) Report {
	return redacted(reflect.ValueOf(r), fn).Interface().(Report)
}

// structural are types whose every string is idemspec's own.
var structural = map[reflect.Type]bool{
	reflect.TypeFor[check.Check](): true,
	reflect.TypeFor[Tool]():        true,
}

// redacted deep-copies v with fn applied to its strings. Slices and maps
// are copied, so the caller's report is left as it was. Unexported fields
// (time.Time's) are copied as they are: they hold no text.
func redacted(v reflect.Value, fn func(string) string) reflect.Value {
	switch v.Kind() {
	case reflect.String:
		if v.Type() != reflect.TypeFor[string]() {
			return v // a named string type: an enum of idemspec's
		}
		return reflect.ValueOf(fn(v.String()))
	case reflect.Struct:
		out := reflect.New(v.Type()).Elem()
		out.Set(v)
		if structural[v.Type()] {
			return out
		}
		for i := 0; i < v.NumField(); i++ {
			if out.Field(i).CanSet() && v.Type().Field(i).Tag.Get("redact") != "-" {
				out.Field(i).Set(redacted(v.Field(i), fn))
			}
		}
		return out
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			out.Index(i).Set(redacted(v.Index(i), fn))
		}
		return out
	case reflect.Array:
		out := reflect.New(v.Type()).Elem()
		for i := 0; i < v.Len(); i++ {
			out.Index(i).Set(redacted(v.Index(i), fn))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		iter := v.MapRange()
		for iter.Next() {
			out.SetMapIndex(iter.Key(), redacted(iter.Value(), fn))
		}
		return out
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type().Elem())
		out.Elem().Set(redacted(v.Elem(), fn))
		return out
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(redacted(v.Elem(), fn))
		return out
	}
	return v
}
