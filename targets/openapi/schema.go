package openapi

import (
	"maps"
	"slices"

	"github.com/getkin/kin-openapi/openapi3"
)

// maxDepth bounds how deep a sample or a search goes into nested and
// recursive schemas (a tree node that holds tree nodes).
const maxDepth = 6

// flatten returns s with its allOf members merged in (properties,
// required, type) and, for a schema that has no properties of its own,
// the first of oneOf or anyOf: the one shape a sample body is built from.
// The document is never changed.
func flatten(ref *openapi3.SchemaRef) *openapi3.Schema {
	return flattenDepth(ref, 0)
}

// maxFlattenNodes bounds the schemas one flatten merges. A schema that
// is merged once is not merged again (allOf: [A, A, ...] over six
// levels would otherwise cost K^6: 8 members, 3 s); this bounds what is
// left, distinct members fanning out.
const maxFlattenNodes = 1000

func flattenDepth(ref *openapi3.SchemaRef, depth int) *openapi3.Schema {
	f := flattening{merged: map[*openapi3.Schema]bool{}, left: maxFlattenNodes}
	return f.flatten(ref, depth)
}

// flattening is one flatten's state: the members merged so far, and
// how many more it may visit.
type flattening struct {
	merged map[*openapi3.Schema]bool
	left   int
}

func (f *flattening) flatten(ref *openapi3.SchemaRef, depth int) *openapi3.Schema {
	if ref == nil || ref.Value == nil {
		return &openapi3.Schema{}
	}
	out := *ref.Value
	if depth >= maxDepth {
		return &out
	}
	out.Properties = maps.Clone(out.Properties)
	out.Required = slices.Clone(out.Required)
	merge := func(m *openapi3.Schema) {
		if out.Type.IsEmpty() {
			out.Type = m.Type
		}
		for name, p := range m.Properties {
			if out.Properties == nil {
				out.Properties = openapi3.Schemas{}
			}
			if _, ok := out.Properties[name]; !ok {
				out.Properties[name] = p
			}
		}
		for _, r := range m.Required {
			if !slices.Contains(out.Required, r) {
				out.Required = append(out.Required, r)
			}
		}
		if out.Items == nil {
			out.Items = m.Items
		}
		if out.Example == nil {
			out.Example = m.Example
		}
	}
	// member merges one of s's members, unless it was merged already
	// (everything it holds is in the result then) or the bound is spent.
	member := func(m *openapi3.SchemaRef) {
		if m == nil || m.Value == nil || f.merged[m.Value] || f.left <= 0 {
			return
		}
		f.merged[m.Value] = true
		f.left--
		merge(f.flatten(m, depth+1))
	}
	for _, m := range out.AllOf {
		member(m)
	}
	if len(out.Properties) == 0 {
		for _, alts := range []openapi3.SchemaRefs{out.OneOf, out.AnyOf} {
			if len(alts) > 0 {
				member(alts[0])
				break
			}
		}
	}
	return &out
}

// kind is the JSON type a schema describes: its first type other than
// null (3.1 writes a nullable string as [string, "null"]), or what its
// keywords imply when it names none.
func kind(s *openapi3.Schema) string {
	if s == nil {
		return ""
	}
	for _, t := range s.Type.Slice() {
		if t != openapi3.TypeNull {
			return t
		}
	}
	switch {
	case len(s.Properties) > 0:
		return openapi3.TypeObject
	case s.Items != nil:
		return openapi3.TypeArray
	}
	return ""
}

// propertyNames lists an object's properties in a stable order.
func propertyNames(s *openapi3.Schema) []string {
	if s == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(s.Properties))
}

// property is the flattened schema of one property, nil when absent
// (or when s is nil).
func property(s *openapi3.Schema, name string) *openapi3.Schema {
	if s == nil {
		return nil
	}
	p, ok := s.Properties[name]
	if !ok {
		return nil
	}
	return flatten(p)
}
