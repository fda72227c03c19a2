package openapi

import (
	"math"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// sample is a value the schema accepts: what the document offers first
// (const, example, examples, default, the first enum value), then one
// made from the type: an object of its required properties, an empty
// array (or one item when minItems asks), a string fit for its format,
// the smallest allowed number.
func sample(ref *openapi3.SchemaRef, depth int) any {
	s := flattenDepth(ref, depth)
	if v, ok := documented(s); ok {
		return v
	}
	switch kind(s) {
	case openapi3.TypeObject:
		obj := map[string]any{}
		if depth >= maxDepth {
			return obj
		}
		for _, name := range s.Required {
			obj[name] = sample(s.Properties[name], depth+1)
			if v, ok := nameSamples[name]; ok && obj[name] == sampleString(flattenDepth(s.Properties[name], depth+1)) {
				obj[name] = v
			}
		}
		return obj
	case openapi3.TypeArray:
		if s.MinItems == 0 || s.Items == nil || depth >= maxDepth {
			return []any{}
		}
		return []any{sample(s.Items, depth+1)}
	case openapi3.TypeInteger:
		return int64(lowest(s))
	case openapi3.TypeNumber:
		return lowest(s)
	case openapi3.TypeBoolean:
		return false
	}
	return sampleString(s)
}

// documented is the value the document gives for a schema, if any.
func documented(s *openapi3.Schema) (any, bool) {
	switch {
	case s.Const != nil:
		return s.Const, true
	case s.Example != nil:
		return s.Example, true
	case len(s.Examples) > 0 && s.Examples[0] != nil:
		return s.Examples[0], true
	case s.Default != nil:
		return s.Default, true
	}
	for _, v := range s.Enum {
		if v != nil {
			return v, true
		}
	}
	return nil, false
}

// lowest is 1, or the minimum when that is higher.
func lowest(s *openapi3.Schema) float64 {
	if s.Min != nil && *s.Min > 1 {
		return math.Ceil(*s.Min)
	}
	return 1
}

// formatSamples are strings of the common formats; "currency" is
// Stripe's (an ISO 4217 code in lower case).
var formatSamples = map[string]string{
	"date-time": "2026-01-01T00:00:00Z",
	"date":      "2026-01-01",
	"time":      "12:00:00",
	"email":     "idemspec@example.com",
	"uuid":      "3fa85f64-5717-4562-b3fc-2c963f66afa6",
	"uri":       "https://example.com",
	"url":       "https://example.com",
	"hostname":  "example.com",
	"ipv4":      "192.0.2.1",
	"ipv6":      "2001:db8::1",
	"byte":      "aWRlbXNwZWM=",
	"currency":  "usd",
}

// nameSamples are strings for properties whose name says their form
// when their schema does not (Stripe's currency is a plain string).
var nameSamples = map[string]string{"currency": "usd", "country": "US", "email": "idemspec@example.com", "locale": "en", "language": "en"}

// MaxSampleString caps the length of a string drafted for a schema's
// minLength: a document is not trusted, and a string of minLength:
// 1000000000000 would not fit in memory. A longer minimum gets this many
// characters; the API's refusal of the first create then says so.
const MaxSampleString = 4096

func sampleString(s *openapi3.Schema) string {
	if v, ok := formatSamples[s.Format]; ok {
		return v
	}
	v := "idemspec"
	if n := min(s.MinLength, MaxSampleString); n > uint64(len(v)) {
		v += strings.Repeat("x", int(n)-len(v))
	}
	if s.MaxLength != nil && uint64(len(v)) > *s.MaxLength {
		v = v[:*s.MaxLength]
	}
	return v
}
