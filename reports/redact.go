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
	return walk{fn: fn}.copy(reflect.ValueOf(r)).Interface().(Report)
}

// rewriteAll is v with fn applied to every string in it, idemspec's own
// structure included (verdicts, the catalogue's text, map keys): for
// escaping what a forged report.json says in every field.
func rewriteAll[T any](v T, fn func(string) string) T {
	return walk{fn: fn, structure: true}.copy(reflect.ValueOf(v)).Interface().(T)
}

// walk deep-copies a value with fn applied to its strings; structure
// says whether idemspec's own strings (named string types, structural
// types, fields tagged redact:"-", map keys) are rewritten too.
type walk struct {
	fn        func(string) string
	structure bool
}

// structural are types whose every string is idemspec's own.
var structural = map[reflect.Type]bool{
	reflect.TypeFor[check.Entry](): true,
	reflect.TypeFor[Tool]():        true,
}

// copy deep-copies v with fn applied to its strings. Slices and maps
// are copied, so the caller's report is left as it was. Unexported fields
// (time.Time's) are copied as they are: they hold no text.
func (w walk) copy(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.String:
		if v.Type() != reflect.TypeFor[string]() && !w.structure {
			return v // a named string type: an enum of idemspec's
		}
		return reflect.ValueOf(w.fn(v.String())).Convert(v.Type())
	case reflect.Struct:
		out := reflect.New(v.Type()).Elem()
		out.Set(v)
		if structural[v.Type()] && !w.structure {
			return out
		}
		for i := 0; i < v.NumField(); i++ {
			if out.Field(i).CanSet() && (w.structure || v.Type().Field(i).Tag.Get("redact") != "-") {
				out.Field(i).Set(w.copy(v.Field(i)))
			}
		}
		return out
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			out.Index(i).Set(w.copy(v.Index(i)))
		}
		return out
	case reflect.Array:
		out := reflect.New(v.Type()).Elem()
		for i := 0; i < v.Len(); i++ {
			out.Index(i).Set(w.copy(v.Index(i)))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		iter := v.MapRange()
		for iter.Next() {
			k := iter.Key()
			if w.structure {
				k = w.copy(k)
			}
			out.SetMapIndex(k, w.copy(iter.Value()))
		}
		return out
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type().Elem())
		out.Elem().Set(w.copy(v.Elem()))
		return out
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(w.copy(v.Elem()))
		return out
	}
	return v
}
