package openapi

import (
	"fmt"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// A $ref that names nothing in the document (Square's, to a schema it
// never defines) makes kin-openapi refuse the whole document. prescan
// replaced each by an empty value marked danglingRef; an operation that
// reaches one is drafted as usual, with a TODO naming the $ref beside
// the field drafted from it, and the draft warns once.

// danglingWarning is the one warning of a document with dangling $refs.
func (d *Document) danglingWarning() []string {
	if len(d.dangling) == 0 {
		return nil
	}
	names := d.dangling
	if len(names) > 5 {
		names = append(slices.Clone(names[:5]), fmt.Sprintf("and %d more", len(d.dangling)-5))
	}
	return []string{fmt.Sprintf("%s: %d $ref%s name%s nothing in the document (%s): drafted as empty schemas, with a TODO in each operation that uses one",
		d.name, len(d.dangling), plural(len(d.dangling), "s", ""), plural(len(d.dangling), "", "s"), strings.Join(names, ", "))}
}

func plural(n int, many, one string) string {
	if n == 1 {
		return one
	}
	return many
}

// danglingTODOs notes, beside create.body and create.id_field, each
// dangling $ref the operation's request or its 2xx answer reaches.
func danglingTODOs(p *Plan, op *openapi3.Operation) {
	var request []string
	for _, param := range op.Parameters {
		if param.Value != nil {
			request = mark(request, param.Value.Extensions)
			request = danglingIn(param.Value.Schema, request)
		}
	}
	if rb := op.RequestBody; rb != nil && rb.Value != nil {
		request = mark(request, rb.Value.Extensions)
		for _, mt := range rb.Value.Content {
			if mt != nil {
				request = danglingIn(mt.Schema, request)
			}
		}
	}
	var answer []string
	if op.Responses != nil {
		for code, r := range op.Responses.Map() {
			if strings.HasPrefix(code, "2") && r != nil && r.Value != nil {
				answer = mark(answer, r.Value.Extensions)
				for _, mt := range r.Value.Content {
					if mt != nil {
						answer = danglingIn(mt.Schema, answer)
					}
				}
			}
		}
	}
	for _, ref := range request {
		p.todo("create.body", "the document's $ref %s names nothing in it: the body is drafted without it; check the fields it would add", ref)
	}
	for _, ref := range answer {
		p.todo("create.id_field", "the document's $ref %s, in the 2xx answer, names nothing in it: check the id's path", ref)
	}
}

// mark adds the dangling $ref an object's extensions hold, if any.
func mark(refs []string, ext map[string]any) []string {
	if ref, ok := ext[danglingRef].(string); ok && !slices.Contains(refs, ref) {
		refs = append(refs, ref)
	}
	return refs
}

// danglingIn adds the dangling $refs a schema reaches. Each schema is
// walked once: a document's schemas reach each other through $ref many
// times over (N required properties per level over six levels are N^6
// paths to one schema), and what one reaches is the same from every
// path.
func danglingIn(ref *openapi3.SchemaRef, refs []string) []string {
	seen := map[*openapi3.Schema]bool{}
	var walk func(ref *openapi3.SchemaRef)
	walk = func(ref *openapi3.SchemaRef) {
		if ref == nil || ref.Value == nil || seen[ref.Value] {
			return
		}
		s := ref.Value
		seen[s] = true
		refs = mark(refs, s.Extensions)
		for _, name := range propertyNames(s) {
			walk(s.Properties[name])
		}
		for _, group := range []openapi3.SchemaRefs{s.AllOf, s.OneOf, s.AnyOf} {
			for _, m := range group {
				walk(m)
			}
		}
		walk(s.Items)
		walk(s.AdditionalProperties.Schema)
	}
	walk(ref)
	return refs
}
