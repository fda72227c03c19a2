package openapi

import (
	"fmt"
	"math"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// Bounds of one sample value. A document is not trusted: required
// properties through $ref, a few per level over maxDepth levels, fan
// out to thousands of values (5 per level over 6 levels ending in
// minLength: 4096 is 64 MB), though the document is 2 KB. Real request
// bodies are a few hundred values and a few KiB.
const (
	// MaxSampleBody bounds the bytes of the strings in one sample value.
	MaxSampleBody = 64 << 10
	// maxSampleNodes bounds the schemas one sample value visits.
	maxSampleNodes = 2000
)

// budget is what is left of a sample value's bounds, and where it ran
// out.
type budget struct {
	nodes, bytes int
	// cut is the path of the first property left out ("" none).
	cut string
}

func newBudget() *budget { return &budget{nodes: maxSampleNodes, bytes: MaxSampleBody} }

// spend takes one schema and n bytes from the budget; false (and the
// path noted) when they do not fit.
func (b *budget) spend(at string, n int) bool {
	if b.nodes <= 0 || b.bytes < n {
		if b.cut == "" {
			b.cut = at
		}
		b.nodes = 0
		return false
	}
	b.nodes--
	b.bytes -= n
	return true
}

// stopped says where a sample value stopped, for a TODO ("" it did
// not).
func (b *budget) stopped() string {
	if b.cut == "" {
		return ""
	}
	return fmt.Sprintf("the schema's required properties fan out past what init drafts (%d values, %d KiB of strings): the sample body stops at %s, and what follows it is left out", maxSampleNodes, MaxSampleBody>>10, b.cut)
}

// sample is a value the schema accepts: what the document offers first
// (const, example, examples, default, the first enum value), then one
// made from the type: an object of its required properties, an empty
// array (or one item when minItems asks), a string fit for its format,
// the smallest allowed number. It stops where the budget runs out (a
// property then left out), and at maxDepth.
func sample(ref *openapi3.SchemaRef, depth int, b *budget) any {
	return sampleAt(ref, depth, b, "")
}

func sampleAt(ref *openapi3.SchemaRef, depth int, b *budget, at string) any {
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
			path := strings.TrimPrefix(at+"."+name, ".")
			if !b.spend(path, 0) {
				break
			}
			obj[name] = sampleAt(s.Properties[name], depth+1, b, path)
			if v, ok := nameSamples[name]; ok && obj[name] == sampleString(flattenDepth(s.Properties[name], depth+1)) {
				obj[name] = v
			}
		}
		return obj
	case openapi3.TypeArray:
		if s.MinItems == 0 || s.Items == nil || depth >= maxDepth || !b.spend(at+"[0]", 0) {
			return []any{}
		}
		return []any{sampleAt(s.Items, depth+1, b, at+"[0]")}
	case openapi3.TypeInteger:
		return int64(lowest(s))
	case openapi3.TypeNumber:
		return lowest(s)
	case openapi3.TypeBoolean:
		return false
	}
	v := sampleString(s)
	if !b.spend(at, len(v)) {
		return "idemspec"
	}
	return v
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
