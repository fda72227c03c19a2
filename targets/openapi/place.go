package openapi

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// Where idemspec's own values go in a drafted body. The marker goes
// only where an API stores free text and gives it back (a description,
// a note, a reference, PayPal's purchase_units[0].custom_id, a metadata
// map): never in an enum, a currency or country code, a token, an id,
// or a string whose format or pattern it would break, which the API
// would refuse. The variant goes in the amount: a number, or a decimal
// string (PayPal's amount.value).

// textNames are the properties APIs store free text in and give back,
// in the order the marker prefers them.
var textNames = []string{"marker", "custom_id", "reference", "reference_id", "description", "note", "memo", "comment", "reason", "notes", "label", "title", "name"}

// textName says whether a property is named as free text: one of
// textNames, or a name ending like one (customer_reference,
// order_description, internal_note).
func textName(name string) bool {
	if slices.Contains(textNames, name) {
		return true
	}
	lower := strings.ToLower(name)
	for _, suffix := range []string{"_note", "_notes", "_description", "_reference", "_memo", "_comment", "description", "reference"} {
		if strings.HasSuffix(lower, suffix) {
			return true
		}
	}
	return false
}

// markerFits says whether the marker can go in a property: named as
// free text, a string any text fits (no enum, const, format or
// pattern), writable, long enough, and not the key.
func markerFits(key keyPlace) func(name string, p *openapi3.Schema) bool {
	return func(name string, p *openapi3.Schema) bool {
		return textName(name) && !(key.in == "body" && name == key.name) && p != nil && kind(p) == openapi3.TypeString &&
			len(p.Enum) == 0 && p.Const == nil && p.Format == "" && p.Pattern == "" && !p.ReadOnly &&
			(p.MaxLength == nil || *p.MaxLength >= 64)
	}
}

// metadataKey is the key the marker takes in a metadata map.
const metadataKey = "idemspec_marker"

// placeMarker puts the marker in the body: a property the list can
// filter by, else the shallowest free-text property (at the top, then
// in the objects and first array items the body holds), else under
// metadataKey in a metadata map. It returns the marker's path, nil for
// none.
func placeMarker(s *openapi3.Schema, fields map[string]any, key keyPlace, filters []string) []string {
	fits := markerFits(key)
	for _, f := range filters {
		if fits(f, property(s, f)) {
			fields[f] = markerSlot
			return []string{f}
		}
	}
	if path := place(s, fields, fits, textNames, markerSlot); path != nil {
		return path
	}
	if m := property(s, "metadata"); m != nil && kind(m) == openapi3.TypeObject && len(m.Properties) == 0 {
		held, _ := fields["metadata"].(map[string]any)
		if held == nil {
			held = map[string]any{}
			fields["metadata"] = held
		}
		held[metadataKey] = markerSlot
		return []string{"metadata", metadataKey}
	}
	return nil
}

// variantNames are the properties a payload's variant fits best.
var variantNames = []string{"amount", "value", "quantity", "count", "price", "total", "spend_limit", "limit"}

// placeVariant puts {{.Variant}} in the body: the shallowest number
// named as an amount (amountName) that takes 1 to a few hundred, else a decimal string named as an amount
// ("{{.Variant}}.00"), else a second free-text string. It returns its
// path, nil for none.
func placeVariant(s *openapi3.Schema, fields map[string]any, key keyPlace, marker []string) []string {
	isMarker := func(name string) bool { return len(marker) == 1 && marker[0] == name }
	number := func(name string, p *openapi3.Schema) bool {
		k := kind(p)
		return !isMarker(name) && amountName(name) && (k == openapi3.TypeInteger || k == openapi3.TypeNumber) && len(p.Enum) == 0 &&
			p.Const == nil && !p.ReadOnly && (p.Min == nil || *p.Min <= 1) && (p.Max == nil || *p.Max >= 1000)
	}
	if path := place(s, fields, number, variantNames, variantNumber); path != nil {
		// An amount in cents takes a hundred times the variant: Stripe
		// refunds a charge under 50 cents.
		if p := propertyAt(s, path); kind(p) == openapi3.TypeInteger && minorUnits(p) {
			setAt(fields, path, variantMinor)
		}
		return path
	}
	decimal := func(name string, p *openapi3.Schema) bool {
		return slices.Contains(variantNames, name) && kind(p) == openapi3.TypeString && len(p.Enum) == 0 && !p.ReadOnly &&
			(p.MaxLength == nil || *p.MaxLength >= 8) && takesDecimal(p)
	}
	if path := place(s, fields, decimal, variantNames, variantDecimal); path != nil {
		return path
	}
	text := func(name string, p *openapi3.Schema) bool { return !isMarker(name) && markerFits(key)(name, p) }
	return place(s, fields, text, textNames, variantString)
}

// minorUnits says whether an amount's description says it counts the
// currency's smallest unit (Stripe's and Square's amounts, in cents).
func minorUnits(p *openapi3.Schema) bool {
	d := strings.ToLower(p.Description)
	return strings.Contains(d, "smallest") || strings.Contains(d, "cents")
}

// setAt replaces the value at a place's path.
func setAt(fields map[string]any, path []string, v any) {
	var at any = fields
	for i, seg := range path {
		last := i == len(path)-1
		switch c := at.(type) {
		case map[string]any:
			if last {
				c[seg] = v
				return
			}
			at = c[seg]
		case []any:
			n, _ := strconv.Atoi(seg)
			if n >= len(c) {
				return
			}
			if last {
				c[n] = v
				return
			}
			at = c[n]
		}
	}
}

// amountName says whether a number is named as an amount the payload
// may change: never an unrelated integer (a delay in hours, a version,
// a page size), which the API may refuse or act on differently.
func amountName(name string) bool {
	lower := strings.ToLower(name)
	for _, w := range []string{"amount", "quantity", "qty", "count", "price", "total", "value", "balance", "sum", "cost", "units", "limit"} {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// takesDecimal says whether a string schema takes "100.00": its
// pattern matches it, or, with none (or one RE2 cannot read), its
// example is a decimal number.
func takesDecimal(p *openapi3.Schema) bool {
	if p.Pattern != "" {
		if re, err := regexp.Compile(p.Pattern); err == nil {
			return re.MatchString("100.00") && re.MatchString("1.00")
		}
	}
	ex, ok := p.Example.(string)
	if !ok {
		return false
	}
	_, err := strconv.ParseFloat(ex, 64)
	return err == nil && strings.Contains(ex, ".")
}

// place puts v at the shallowest property that fits: at the top, then
// in the objects and the first items of the arrays the body holds,
// down to maxPlaceDepth; at each level the preferred names first, then
// the others by name. It returns the path (an array's item as "0"),
// nil when none fits.
func place(s *openapi3.Schema, fields map[string]any, fits func(string, *openapi3.Schema) bool, preferred []string, v slot) []string {
	type level struct {
		schema *openapi3.Schema
		held   map[string]any
		path   []string
	}
	levels := []level{{s, fields, nil}}
	for depth := 0; depth < maxPlaceDepth && len(levels) > 0; depth++ {
		var next []level
		for _, l := range levels {
			names := propertyNames(l.schema)
			for _, group := range [][]string{preferred, names} {
				for _, name := range group {
					p := property(l.schema, name)
					if p == nil || !fits(name, p) {
						continue
					}
					if _, taken := l.held[name].(slot); taken {
						continue
					}
					l.held[name] = v
					return append(slices.Clone(l.path), name)
				}
			}
			for _, name := range names {
				switch held := l.held[name].(type) {
				case map[string]any:
					next = append(next, level{property(l.schema, name), held, append(slices.Clone(l.path), name)})
				case []any:
					if item, ok := firstItem(held); ok {
						next = append(next, level{flatten(property(l.schema, name).Items), item, append(slices.Clone(l.path), name, "0")})
					}
				}
			}
		}
		levels = next
	}
	return nil
}

// maxPlaceDepth is how deep place looks: purchase_units[0].amount.value
// is three objects down.
const maxPlaceDepth = 4

func firstItem(a []any) (map[string]any, bool) {
	if len(a) == 0 {
		return nil, false
	}
	m, ok := a[0].(map[string]any)
	return m, ok
}

// jsonPathOf writes a place's path as a target file's JSON path
// (purchase_units[0].custom_id).
func jsonPathOf(path []string) string {
	var b strings.Builder
	for i, seg := range path {
		if _, err := strconv.Atoi(seg); err == nil && i > 0 {
			b.WriteString("[" + seg + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(seg)
	}
	return b.String()
}

// propertyAt is the schema at a place's path, nil when it has none.
func propertyAt(s *openapi3.Schema, path []string) *openapi3.Schema {
	for _, seg := range path {
		if _, err := strconv.Atoi(seg); err == nil && kind(s) == openapi3.TypeArray {
			s = flatten(s.Items)
			continue
		}
		if kind(s) == openapi3.TypeObject && len(s.Properties) == 0 {
			return &openapi3.Schema{} // a map (metadata): any key
		}
		if s = property(s, seg); s == nil {
			return nil
		}
	}
	return s
}
