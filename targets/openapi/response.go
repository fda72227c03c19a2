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

// idField is the JSON path of the resource id in an answer of schema s:
// id, else a property named like one (the resource's own, order_id for
// /orders, first), else the id of the one object the answer wraps
// (data.id, payment.id).
func idField(s *openapi3.Schema, resource string) string {
	if s == nil || kind(s) != openapi3.TypeObject {
		return ""
	}
	if name := ownID(s, resource); name != "" {
		return name
	}
	var wrapped []string
	for _, name := range propertyNames(s) {
		if p := property(s, name); kind(p) == openapi3.TypeObject {
			if id := ownID(p, resource); id != "" {
				wrapped = append(wrapped, name+"."+id)
			}
		}
	}
	if len(wrapped) == 1 {
		return wrapped[0]
	}
	return ""
}

// ownID is an object's own id property, "" when it has none.
func ownID(s *openapi3.Schema, resource string) string {
	scalar := func(name string) bool {
		k := kind(property(s, name))
		return k == openapi3.TypeString || k == openapi3.TypeInteger
	}
	for _, name := range []string{"id", resource + "_id", resource + "Id"} {
		if property(s, name) != nil && scalar(name) {
			return name
		}
	}
	// Else a name ending like an id, then like a reference (an API
	// whose resources are named by a paymentReference).
	for _, suffixes := range [][]string{{"_id", "Id", "ID"}, {"_reference", "Reference"}} {
		for _, name := range propertyNames(s) {
			if slices.ContainsFunc(suffixes, func(x string) bool { return strings.HasSuffix(name, x) || strings.HasSuffix(strings.ToLower(name), x) }) &&
				!isKeyName(name) && scalar(name) && !property(s, name).WriteOnly {
				return name
			}
		}
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
