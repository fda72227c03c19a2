package openapi

import (
	"cmp"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// An answer often names several ids: the resource's own (Adyen's
// pspReference, Lithic's token), the caller's reference echoed back
// (merchantReference, which holds the marker), a parent's or an
// optional product's (product_id, absent for virtual cards). The
// oracle counts by the id the draft names, so the draft takes a
// required, read-only property the server makes, never one the request
// set, and says why in the file, with the runner-up.

// idChoice is the id a draft names in an answer, why, and the next best.
type idChoice struct {
	field, why, next string
	passed           string // an id-like property left out because the request sets it, "" for none
}

// idCandidate is a property of an answer that may be the resource's id.
type idCandidate struct {
	name               string
	required, readOnly bool
	rank               int // by name: id, the resource's own id, *_id, *Reference, token
}

// callerWords begin the names of ids the caller gives and the answer
// echoes (merchantReference, client_reference_id, external_id).
var callerWords = []string{"merchant", "client", "external", "customer", "partner", "shopper", "user", "caller", "your"}

// idCandidates are the id-like scalar properties of an object, the
// likeliest first; set holds the names (lower case) the request sets,
// which are never the id of what the server made.
func idCandidates(s *openapi3.Schema, resource string, set map[string]bool) []idCandidate {
	if s == nil || kind(s) != openapi3.TypeObject {
		return nil
	}
	var out []idCandidate
	for _, name := range propertyNames(s) {
		p := property(s, name)
		if k := kind(p); k != openapi3.TypeString && k != openapi3.TypeInteger || p.WriteOnly || isKeyName(name) || set[strings.ToLower(name)] || callerName(name) {
			continue
		}
		r := idRank(name, resource)
		if r < 0 {
			continue
		}
		out = append(out, idCandidate{name: name, required: slices.Contains(s.Required, name), readOnly: p.ReadOnly, rank: r})
	}
	slices.SortStableFunc(out, func(a, b idCandidate) int {
		return cmp.Or(boolFirst(a.required, b.required), boolFirst(a.readOnly, b.readOnly), cmp.Compare(a.rank, b.rank), cmp.Compare(a.name, b.name))
	})
	return out
}

// idRank orders id-like names: id, the resource's own (order_id for
// /orders), a name ending like an id, like a reference (Adyen's
// pspReference), then token and uuid (Lithic's cards are named by a
// token); -1 for a name not like an id.
func idRank(name, resource string) int {
	lower := strings.ToLower(name)
	switch {
	case name == "id":
		return 0
	case name == resource+"_id" || name == resource+"Id":
		return 1
	case strings.HasSuffix(lower, "_id") || strings.HasSuffix(name, "Id") || strings.HasSuffix(name, "ID"):
		return 2
	case strings.HasSuffix(lower, "reference"):
		return 3
	case lower == "token" || lower == "uuid":
		return 4
	}
	return -1
}

// callerName says whether a name begins with a word of the caller's
// (merchantReference, client_reference_id).
func callerName(name string) bool {
	lower := strings.ToLower(name)
	for _, w := range callerWords {
		if rest, ok := strings.CutPrefix(lower, w); ok && rest != "" && len(name) > len(w) &&
			(rest[0] == '_' || name[len(w)] >= 'A' && name[len(w)] <= 'Z') {
			return true
		}
	}
	return false
}

// chooseID picks the id of what a create made in its answer of schema
// s: an id-like property of the answer, else of the one object it wraps
// (data.id, payment.id).
func chooseID(s *openapi3.Schema, resource string, set map[string]bool) idChoice {
	if s == nil || kind(s) != openapi3.TypeObject {
		return idChoice{}
	}
	prefix, c := "", idCandidates(s, resource, set)
	if len(c) == 0 {
		var wrapped []string
		for _, name := range propertyNames(s) {
			if p := property(s, name); kind(p) == openapi3.TypeObject && len(idCandidates(p, resource, set)) > 0 {
				wrapped = append(wrapped, name)
			}
		}
		if len(wrapped) != 1 {
			return idChoice{}
		}
		s = property(s, wrapped[0])
		prefix, c = wrapped[0]+".", idCandidates(s, resource, set)
	}
	out := idChoice{field: prefix + c[0].name, why: c[0].because()}
	if len(c) > 1 {
		out.next = prefix + c[1].name
	}
	for _, name := range propertyNames(s) {
		if idRank(name, resource) >= 0 && (set[strings.ToLower(name)] || callerName(name)) {
			out.passed = prefix + name
			break
		}
	}
	return out
}

// because says what makes a candidate the id.
func (c idCandidate) because() string {
	var r []string
	if c.required {
		r = append(r, "required")
	}
	if c.readOnly {
		r = append(r, "read-only")
	}
	r = append(r, "named like an id", "not set by the request")
	return strings.Join(r, ", ")
}

// requestNames are the names (lower case) a request sets: its path and
// query parameters (a parent's id in the path: paymentPspReference) and
// its body's top-level properties (a nested one,
// a line item's id, is no echo of the answer's).
func requestNames(params openapi3.Parameters, body *openapi3.Schema) map[string]bool {
	out := map[string]bool{}
	for _, p := range params {
		// A parent's {id} in the path names the parent: the answer's
		// id is still the child's own.
		if p.Value != nil && !(p.Value.In == openapi3.ParameterInPath && p.Value.Name == "id") {
			out[strings.ToLower(p.Value.Name)] = true
		}
	}
	if body != nil {
		for _, name := range propertyNames(body) {
			out[strings.ToLower(name)] = true
		}
	}
	return out
}

// say is the comment beside id_field.
func (c idChoice) say() string {
	s := "id_field " + c.field + ": " + c.why
	if c.next != "" {
		s += "; the runner-up: " + c.next
	}
	if c.passed != "" {
		s += "; not " + c.passed + ", which echoes what the request sent"
	}
	return s + "."
}
