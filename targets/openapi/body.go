package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// slot is template text a body holds where idemspec puts a value of its
// own, as it stands in a JSON body and in a form.
type slot struct{ json, form string }

var (
	markerSlot     = slot{`"{{.Marker}}"`, `{{.Marker}}`}
	variantNumber  = slot{`{{.Variant}}`, `{{.Variant}}`}
	variantString  = slot{`"v{{.Variant}}"`, `v{{.Variant}}`}
	variantDecimal = slot{`"{{.Variant}}.00"`, `{{.Variant}}.00`}
	variantMinor   = slot{`{{.Variant}}00`, `{{.Variant}}00`}
	keySlot        = slot{`"{{.Key}}"`, `{{.Key}}`}
)

const formType = "application/x-www-form-urlencoded"

// body is a drafted create.body: the template, its content type, and
// the fields idemspec's own values went into.
type body struct {
	contentType string
	schema      *openapi3.Schema // the flattened top-level schema (nil: none)
	text        string           // "": no body could be drafted (see the TODOs)
	marker      []string         // the path of the property holding {{.Marker}} (an array's item as "0"), nil for none
	variant     []string         // the path of the property holding {{.Variant}}
	stopped     string           // where the sample body stopped short of the schema, for a TODO ("": it did not)
}

// mediaType picks the request body's JSON media type, else its form one.
func mediaType(rb *openapi3.RequestBodyRef) (string, *openapi3.MediaType) {
	if rb == nil || rb.Value == nil {
		return "", nil
	}
	types := slices.Sorted(maps.Keys(rb.Value.Content))
	for _, t := range types {
		if t == "application/json" || strings.HasSuffix(t, "+json") {
			return t, rb.Value.Content[t]
		}
	}
	if mt := rb.Value.Content[formType]; mt != nil {
		return formType, mt
	}
	if len(types) > 0 {
		return types[0], rb.Value.Content[types[0]]
	}
	return "", nil
}

// draftBody builds the body from the media type's example, else the
// schema's required properties (keeping those isParent names), then
// places the marker (place.go; in a property the list can filter by,
// filters, when one fits), the variant and a body key, and lets finish
// put in the API's test values and the parents' ids.
func draftBody(p *Plan, contentType string, mt *openapi3.MediaType, filters []string, isParent func(string) bool, finish func(*Plan, *openapi3.Schema, map[string]any)) body {
	if mt == nil {
		p.todo("create.body", "the operation declares no request body: write one that holds {{.Marker}} and {{.Variant}} in fields your API stores")
		return body{contentType: contentType}
	}
	b, fields, kept, why := startBody(contentType, mt, isParent)
	if why != "" {
		p.todo("create.body", "%s: write one that holds {{.Marker}} and {{.Variant}}", why)
		return b
	}
	if b.stopped != "" {
		p.todo("create.body", "%s", b.stopped)
	}

	if p.key.in == "body" {
		if contentType == formType {
			p.todo("key", "the key is the form field %q: idemspec places a key only in a JSON body; take it in a header or the query if the API allows", p.key.name)
		} else {
			fields[p.key.name] = keySlot
		}
	}
	if b.marker = placeMarker(b.schema, fields, p.key, filters); b.marker == nil {
		p.todo("create.body", "no free-text property (a description, note, reference or metadata map, with no enum, format or pattern) to carry {{.Marker}}: put it in a field your API stores and gives back")
	}
	if b.variant = placeVariant(b.schema, fields, p.key, b.marker); b.variant == nil {
		p.todo("create.body", "no amount or second free-text field to carry {{.Variant}}: the body must change with it (S3 sends a second payload under the same key)")
	}
	finish(p, b.schema, fields)
	// One TODO names the example's values the author must replace:
	// placeholders, and what every example holds though the schema does
	// not require it (the marker or the variant may have replaced it).
	var held []string
	placeholders(fields, "", &held)
	for _, name := range kept {
		// An enum's value (Lithic's state: OPEN) is no account's own.
		if ps := property(b.schema, name); ps != nil && len(ps.Enum) > 0 {
			continue
		}
		if _, isSlot := fields[name].(slot); !isSlot && !slices.ContainsFunc(held, func(h string) bool { return strings.HasPrefix(h, name+" ") }) {
			held = append(held, fmt.Sprintf("%s (in every example, though the schema does not require it)", name))
		}
	}
	if len(held) > 0 {
		p.todo("create.body", "the document's examples fill in what is your account's: %s; put your own values", strings.Join(held, ", "))
	}
	b.text = render(contentType, fields)
	return b
}

// startBody is the fields of a body of the media type: its example, else
// the schema's required properties. why, when set, says why no body can
// be drafted (a body that is neither JSON nor a form, or not an object).
func startBody(contentType string, mt *openapi3.MediaType, keep func(string) bool) (b body, fields map[string]any, kept []string, why string) {
	b = body{contentType: contentType}
	if contentType != formType && !strings.Contains(contentType, "json") {
		return b, nil, nil, fmt.Sprintf("the request body is %s: only JSON and form bodies are drafted", contentType)
	}
	b.schema = flatten(mt.Schema)
	if mt.Schema != nil && kind(b.schema) != openapi3.TypeObject {
		return b, nil, nil, "the request body is not a JSON object"
	}
	fields = map[string]any{}
	spent := newBudget()
	defer func() { b.stopped = spent.stopped() }()
	if ex, ok := deepCopy(mediaExample(mt)).(map[string]any); ok {
		fields = ex
	} else if s, ok := deepCopy(sample(mt.Schema, 0, spent)).(map[string]any); ok {
		fields = s
	}
	// Of an example, the values of what the schema requires, the amount
	// and the parents keep says setup can make (Square's refund's
	// payment_id): what it shows besides (Square's app_fee_money, a
	// location_id of its own) is what an account may not have or allow.
	// A field every example shows (Adyen's balanceAccountId) is
	// required in practice, whatever the schema says.
	inEvery := everyExample(mt)
	if len(b.schema.Required) > 0 {
		maps.DeleteFunc(fields, func(name string, _ any) bool {
			return !slices.Contains(b.schema.Required, name) && !strings.Contains(strings.ToLower(name), "amount") && !keep(name) && !inEvery[name]
		})
		for _, name := range slices.Sorted(maps.Keys(fields)) {
			if inEvery[name] && !slices.Contains(b.schema.Required, name) && !strings.Contains(strings.ToLower(name), "amount") && !keep(name) {
				kept = append(kept, name)
			}
		}
		for _, name := range b.schema.Required {
			if _, ok := fields[name]; !ok {
				fields[name] = sampleAt(b.schema.Properties[name], 1, spent, name)
			}
		}
	}
	return b, fields, kept, ""
}

// deepCopy copies a document's example, which the draft then fills: the
// document's own stays as it was for the next operation drafted from it.
func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

// render writes a body's fields as a form or as JSON.
func render(contentType string, fields map[string]any) string {
	if contentType == formType {
		return formBody(fields)
	}
	var w strings.Builder
	writeJSON(&w, fields)
	return w.String()
}

// everyExample names the top-level fields every example of the media
// type holds, when it has two examples or more.
func everyExample(mt *openapi3.MediaType) map[string]bool {
	var in map[string]bool
	n := 0
	for _, ex := range mt.Examples {
		if ex == nil || ex.Value == nil {
			continue
		}
		fields, ok := ex.Value.Value.(map[string]any)
		if !ok {
			continue
		}
		n++
		if in == nil {
			in = map[string]bool{}
			for k := range fields {
				in[k] = true
			}
			continue
		}
		maps.DeleteFunc(in, func(k string, _ bool) bool { _, ok := fields[k]; return !ok })
	}
	if n < 2 {
		return nil
	}
	return in
}

// placeholder matches an example's value that stands for the caller's
// own (YOUR_MERCHANT_ACCOUNT, https://your-company.example.com/...,
// <token>, a value cut short with "...").
var placeholder = regexp.MustCompile(`(?i)(^|[^a-z])your[-_ ]?[a-z]|^<[^>]+>$|\.\.\.$|…$`)

// placeholders lists the drafted body's strings that look like
// placeholders, by their JSON path.
func placeholders(v any, at string, out *[]string) {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			placeholders(v[k], strings.TrimPrefix(at+"."+k, "."), out)
		}
	case []any:
		for i, e := range v {
			placeholders(e, fmt.Sprintf("%s[%d]", at, i), out)
		}
	case string:
		if placeholder.MatchString(v) {
			*out = append(*out, fmt.Sprintf("%s (%q)", at, v))
		}
	}
}

// mediaExample is the media type's example, or its first named one.
func mediaExample(mt *openapi3.MediaType) any {
	if mt.Example != nil {
		return mt.Example
	}
	for _, name := range slices.Sorted(maps.Keys(mt.Examples)) {
		if ex := mt.Examples[name]; ex != nil && ex.Value != nil && ex.Value.Value != nil {
			return ex.Value.Value
		}
	}
	return nil
}

// freeString is a string any text fits: no enum, const, format,
// pattern or example (an example shows a value of a form of its own: a
// card nonce, an account id), writable, and long enough for a marker.
func freeString(p *openapi3.Schema) bool {
	return p != nil && kind(p) == openapi3.TypeString && len(p.Enum) == 0 && p.Const == nil &&
		p.Example == nil && len(p.Examples) == 0 &&
		p.Format == "" && p.Pattern == "" && !p.ReadOnly && (p.MaxLength == nil || *p.MaxLength >= 64)
}

// writeJSON writes v as JSON with object keys sorted, slots as their
// template text, and "{{" in the document's own strings escaped so the
// template prints it rather than reading an action.
func writeJSON(w *strings.Builder, v any) {
	switch v := v.(type) {
	case slot:
		w.WriteString(v.json)
	case map[string]any:
		w.WriteByte('{')
		for i, k := range slices.Sorted(maps.Keys(v)) {
			if i > 0 {
				w.WriteByte(',')
			}
			w.WriteString(literal(k))
			w.WriteByte(':')
			writeJSON(w, v[k])
		}
		w.WriteByte('}')
	case []any:
		w.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				w.WriteByte(',')
			}
			writeJSON(w, e)
		}
		w.WriteByte(']')
	default:
		w.WriteString(literal(v))
	}
}

// literal is v in JSON, its template delimiters escaped.
func literal(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "null"
	}
	return escapeActions(strings.TrimSuffix(b.String(), "\n"))
}

func escapeActions(s string) string { return strings.ReplaceAll(s, "{{", `{{"{{"}}`) }

// formBody encodes fields as a form, nested objects and arrays with
// brackets (a[b]=1, a[0]=x) as Stripe and Rails read them.
func formBody(fields map[string]any) string {
	var pairs []string
	var add func(name string, v any)
	add = func(name string, v any) {
		switch v := v.(type) {
		case slot:
			pairs = append(pairs, url.QueryEscape(name)+"="+v.form)
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(v)) {
				add(name+"["+k+"]", v[k])
			}
		case []any:
			for i, e := range v {
				add(fmt.Sprintf("%s[%d]", name, i), e)
			}
		case nil:
			pairs = append(pairs, url.QueryEscape(name)+"=")
		default:
			pairs = append(pairs, url.QueryEscape(name)+"="+url.QueryEscape(fmt.Sprint(v)))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		add(k, fields[k])
	}
	return strings.Join(pairs, "&")
}
