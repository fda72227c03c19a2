package openapi

import (
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemspec/idemspec/targets"
)

// keyNames are the names APIs give an idempotency key besides those
// holding "idempotency" (Idempotency-Key, X-Idempotency-Key, Square's
// idempotency_key), lower case without dashes or underscores: PayPal's
// PayPal-Request-Id, AWS's ClientToken and ClientRequestToken. A bare
// X-Request-Id is left out: it is a tracing header far more often.
var keyNames = []string{"paypalrequestid", "requestid", "clienttoken", "clientrequesttoken", "clientrequestid"}

// isKeyName says whether a parameter or body property is named like an
// idempotency key, whatever its case and its dashes or underscores.
func isKeyName(name string) bool {
	n := strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(name))
	return strings.Contains(n, "idempotency") || slices.Contains(keyNames, n)
}

// keyPlace is where an operation takes its key: header, query or body,
// and the name there.
type keyPlace struct {
	in, name string
	declared bool // the document names it; false when assumed from --key-header
	// pattern and maxLength are what the document's schema of the key
	// says of its format ("" and 0: nothing), carried into key: so that
	// K2a judges the API's own format, not idemspec's default.
	pattern   string
	maxLength uint64
	uuid      bool // the schema's format: uuid
	// optional: the document declares the key required: false (or does
	// not require its body field), so K1 and P1 must not expect a
	// keyless create refused.
	optional bool
}

// withFormat is k with the format its schema declares.
func (k keyPlace) withFormat(s *openapi3.Schema) keyPlace {
	if s == nil {
		return k
	}
	k.pattern = s.Pattern
	k.uuid = s.Format == "uuid"
	if s.MaxLength != nil {
		k.maxLength = *s.MaxLength
	}
	return k
}

// declaredKey finds the key an operation declares: a header or query
// parameter named like a key, or a top-level property of its JSON body.
func declaredKey(params openapi3.Parameters, body *openapi3.Schema) (keyPlace, bool) {
	for _, p := range params {
		if p.Value == nil || !isKeyName(p.Value.Name) {
			continue
		}
		switch p.Value.In {
		case openapi3.ParameterInHeader:
			if targets.ValidHeaderName(p.Value.Name) {
				return keyPlace{in: p.Value.In, name: p.Value.Name, declared: true, optional: !p.Value.Required}.withFormat(flatten(p.Value.Schema)), true
			}
		case openapi3.ParameterInQuery:
			return keyPlace{in: p.Value.In, name: p.Value.Name, declared: true, optional: !p.Value.Required}.withFormat(flatten(p.Value.Schema)), true
		}
	}
	if body != nil {
		for _, name := range propertyNames(body) {
			if isKeyName(name) && kind(property(body, name)) == openapi3.TypeString {
				return keyPlace{in: "body", name: name, declared: true, optional: !slices.Contains(body.Required, name)}.withFormat(property(body, name)), true
			}
		}
	}
	return keyPlace{}, false
}

// parameters are an operation's parameters with those of its path item,
// the operation's own winning where both name the same one.
func parameters(item *openapi3.PathItem, op *openapi3.Operation) openapi3.Parameters {
	out := slices.Clone(op.Parameters)
	for _, p := range item.Parameters {
		if p.Value != nil && op.Parameters.GetByInAndName(p.Value.In, p.Value.Name) == nil {
			out = append(out, p)
		}
	}
	return out
}

// uuidLength is the length of idemspec's default keys.
const uuidLength = 36

// keyFormat keeps of the key's declared format what a target file can
// say: a pattern idemspec can make keys from, and a maximum length its
// keys fit. What it cannot keep becomes a TODO.
func (p *Plan) keyFormat(check func(string) error) {
	k := &p.key
	if k.pattern != "" && check != nil {
		if err := check(k.pattern); err != nil {
			p.todo("key", "the document's pattern for the key, %q, cannot be the key's format (%v): idemspec makes UUID keys; declare format: pattern with a pattern of your keys it can make keys from", k.pattern, err)
			k.pattern = ""
		}
	}
	if k.pattern == "" && k.maxLength > 0 && k.maxLength < uuidLength {
		p.todo("key", "the document's key is at most %d characters, shorter than idemspec's UUID keys: declare format: pattern with a pattern of keys that fit, and max_length: %d", k.maxLength, k.maxLength)
		k.maxLength = 0
	}
}
