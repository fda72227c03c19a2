package openapi

import (
	"maps"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// success is the JSON schema of an operation's success answer: 201,
// 200 or 202 first, then any other 2xx.
func success(op *openapi3.Operation) *openapi3.Schema {
	if op.Responses == nil {
		return nil
	}
	m := op.Responses.Map()
	codes := []string{"201", "200", "202"}
	for _, c := range slices.Sorted(maps.Keys(m)) {
		if strings.HasPrefix(c, "2") && !slices.Contains(codes, c) {
			codes = append(codes, c)
		}
	}
	codes = append(codes, "2XX", "default")
	for _, c := range codes {
		if r := m[c]; r != nil && r.Value != nil {
			if s := jsonSchema(r.Value.Content); s != nil {
				return s
			}
		}
	}
	return nil
}

// jsonSchema is the flattened schema of content's JSON media type.
func jsonSchema(content openapi3.Content) *openapi3.Schema {
	for _, t := range slices.Sorted(maps.Keys(content)) {
		if mt := content[t]; (t == "application/json" || strings.HasSuffix(t, "+json")) && mt != nil && mt.Schema != nil {
			return flatten(mt.Schema)
		}
	}
	return nil
}

// idField is the JSON path of the resource id in an answer of schema s
// (idchoice.go), "" when it names none.
func idField(s *openapi3.Schema, resource string) string {
	return chooseID(s, resource, nil).field
}

// ownID is an object's own id property, "" when it has none.
func ownID(s *openapi3.Schema, resource string) string {
	if c := idCandidates(s, resource, nil); len(c) > 0 {
		return c[0].name
	}
	return ""
}

// resourceName is the singular noun of a collection path's last
// segment: order for /v1/orders, category for /categories.
func resourceName(path string) string {
	segments := strings.Split(strings.Trim(path, "/"), "/")
	for i := len(segments) - 1; i >= 0; i-- {
		seg := segments[i]
		if seg == "" || strings.HasPrefix(seg, "{") {
			continue
		}
		if s, ok := strings.CutSuffix(seg, "ies"); ok {
			return s + "y"
		}
		return strings.TrimSuffix(seg, "s")
	}
	return ""
}
