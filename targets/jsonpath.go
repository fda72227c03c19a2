package targets

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/idemspec/idemspec/internal/exactjson"
)

// A jsonPath names a place in a JSON answer: a field's id_field, items,
// marker_field, and where a list answer says what comes next. It is the
// dotted path target files always had (data.id), plus a few JSONPath
// selectors:
//
//	name.name          object keys ("" is the whole answer)
//	[0], [-1]          an array element; a negative index counts from the end
//	["a.b"], ['a.b']   a key that holds dots or brackets
//	[*]                every element of an array
//	[?(@.f == "v")]    the elements whose field f equals a JSON literal;
//	                   != too, and [?(@.f)] keeps those where f is present
//	                   and not null; the parentheses may be left out
//
// A path with [*] or a filter finds a list of values, as JSONPath does;
// where one value is wanted, it must find at most one.
type jsonPath struct {
	text  string
	steps []pathStep
	multi bool
}

type pathStep struct {
	key    string
	index  int
	kind   stepKind
	filter *pathFilter
}

type stepKind int

const (
	stepKey stepKind = iota
	stepIndex
	stepAll
	stepFilter
)

// pathFilter keeps the array elements whose field (a path relative to
// the element, @) compares to value by op ("==", "!=", or "" for "present
// and not null").
type pathFilter struct {
	field jsonPath
	op    string
	value any
}

// parsePath reads a path; its errors say where the text goes wrong.
func parsePath(text string) (jsonPath, error) {
	p := jsonPath{text: text}
	i := 0
	for i < len(text) {
		switch c := text[i]; {
		case c == '[':
			st, next, err := parseSelector(text, i)
			if err != nil {
				return jsonPath{}, fmt.Errorf("path %q: %w", text, err)
			}
			p.steps = append(p.steps, st)
			p.multi = p.multi || st.kind == stepAll || st.kind == stepFilter
			i = next
		case c == '.' && i > 0 && i+1 < len(text) && text[i+1] != '.' && text[i+1] != '[':
			i++ // a name follows
		case c == '.':
			return jsonPath{}, fmt.Errorf("path %q: an empty name at offset %d (write a.b, a[0], a[\"x.y\"])", text, i)
		case c == ']':
			return jsonPath{}, fmt.Errorf("path %q: ] without [ at offset %d", text, i)
		default:
			if i > 0 && text[i-1] == ']' {
				return jsonPath{}, fmt.Errorf("path %q: want . or [ after ] at offset %d", text, i)
			}
			j := i
			for j < len(text) && !strings.ContainsRune(".[]", rune(text[j])) {
				j++
			}
			p.steps = append(p.steps, pathStep{kind: stepKey, key: text[i:j]})
			i = j
		}
	}
	return p, nil
}

// parseSelector reads the [...] at text[i] and returns where it ends.
func parseSelector(text string, i int) (pathStep, int, error) {
	rest := text[i+1:]
	switch {
	case strings.HasPrefix(rest, "*]"):
		return pathStep{kind: stepAll}, i + 3, nil
	case strings.HasPrefix(rest, `"`), strings.HasPrefix(rest, "'"):
		key, n, err := quoted(rest)
		if err != nil {
			return pathStep{}, 0, fmt.Errorf("at offset %d: %w", i, err)
		}
		if !strings.HasPrefix(rest[n:], "]") {
			return pathStep{}, 0, fmt.Errorf("at offset %d: want ] after the quoted key", i+1+n)
		}
		return pathStep{kind: stepKey, key: key}, i + 1 + n + 1, nil
	case strings.HasPrefix(rest, "?"):
		f, n, err := parseFilter(rest[1:])
		if err != nil {
			return pathStep{}, 0, fmt.Errorf("filter at offset %d: %w", i, err)
		}
		return pathStep{kind: stepFilter, filter: &f}, i + 2 + n, nil
	}
	end := strings.IndexByte(rest, ']')
	if end < 0 {
		return pathStep{}, 0, fmt.Errorf("[ at offset %d is never closed", i)
	}
	n, err := strconv.Atoi(strings.TrimSpace(rest[:end]))
	if err != nil {
		return pathStep{}, 0, fmt.Errorf("[%s] at offset %d is not an index, a quoted key, * or a filter ?(@.field == value)", rest[:end], i)
	}
	return pathStep{kind: stepIndex, index: n}, i + 1 + end + 1, nil
}

// parseFilter reads `(@.f op literal)]` or `@.f op literal]` (what follows
// "[?") and returns how many bytes it took, the closing ] included.
func parseFilter(s string) (pathFilter, int, error) {
	i := skipSpace(s, 0)
	paren := strings.HasPrefix(s[i:], "(")
	if paren {
		i = skipSpace(s, i+1)
	}
	if !strings.HasPrefix(s[i:], "@") {
		return pathFilter{}, 0, fmt.Errorf("want @ (the element), as in [?(@.status == \"active\")]")
	}
	i++
	start := i
	for i < len(s) && !strings.ContainsRune(" =!)]", rune(s[i])) {
		if s[i] == '[' {
			// a selector inside the field: [0] or ["a b"]
			_, next, err := parseSelector(s, i)
			if err != nil {
				return pathFilter{}, 0, err
			}
			i = next
			continue
		}
		i++
	}
	field, err := parsePath(strings.TrimPrefix(s[start:i], "."))
	if err != nil {
		return pathFilter{}, 0, err
	}
	if field.multi {
		return pathFilter{}, 0, fmt.Errorf("@%s finds a list: a filter compares one value", s[start:i])
	}
	f := pathFilter{field: field}
	i = skipSpace(s, i)
	if strings.HasPrefix(s[i:], "==") || strings.HasPrefix(s[i:], "!=") {
		f.op = s[i : i+2]
		i = skipSpace(s, i+2)
		var n int
		if f.value, n, err = literal(s[i:]); err != nil {
			return pathFilter{}, 0, err
		}
		i = skipSpace(s, i+n)
	} else if !strings.HasPrefix(s[i:], ")") && !strings.HasPrefix(s[i:], "]") {
		return pathFilter{}, 0, fmt.Errorf("want == or != and a value after @%s, as in [?(@.status == \"active\")]", strings.TrimSpace(s[start:i]))
	}
	if paren {
		if !strings.HasPrefix(s[i:], ")") {
			return pathFilter{}, 0, fmt.Errorf("want ) to close the filter")
		}
		i = skipSpace(s, i+1)
	}
	if !strings.HasPrefix(s[i:], "]") {
		return pathFilter{}, 0, fmt.Errorf("want == or != and a value, then ], as in [?(@.status == \"active\")]")
	}
	return f, i + 1, nil
}

// literal reads a JSON value (or a 'single-quoted' string) at the start
// of s and returns it decoded, with how many bytes it took.
func literal(s string) (any, int, error) {
	if strings.HasPrefix(s, `"`) || strings.HasPrefix(s, "'") {
		v, n, err := quoted(s)
		return v, n, err
	}
	n := 0
	for n < len(s) && !strings.ContainsRune(" )]", rune(s[n])) {
		n++
	}
	v, err := exactjson.Decode([]byte(s[:n]))
	if err != nil || n == 0 {
		return nil, 0, fmt.Errorf("%q is not a value: write a \"string\", a number, true, false or null", s[:n])
	}
	switch v.(type) {
	case json.Number, bool, nil:
		return v, n, nil
	}
	return nil, 0, fmt.Errorf("%q: a filter compares to a string, a number, true, false or null", s[:n])
}

// quoted reads a "JSON string" or a 'string' (no escapes) at the start of
// s, returning its value and how many bytes it took.
func quoted(s string) (string, int, error) {
	if s[0] == '\'' {
		end := strings.IndexByte(s[1:], '\'')
		if end < 0 {
			return "", 0, fmt.Errorf("unclosed '")
		}
		return s[1 : 1+end], end + 2, nil
	}
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			var v string
			if err := json.Unmarshal([]byte(s[:i+1]), &v); err != nil {
				return "", 0, fmt.Errorf("%s is not a JSON string: %v", s[:i+1], err)
			}
			return v, i + 1, nil
		}
	}
	return "", 0, fmt.Errorf("unclosed \"")
}

func skipSpace(s string, i int) int {
	for i < len(s) && s[i] == ' ' {
		i++
	}
	return i
}

// find lists the values the path reaches in v (JSON decoded by
// exactjson.Decode): none when it reaches nothing, one for a plain path.
func (p jsonPath) find(v any) []any {
	nodes := []any{v}
	for _, st := range p.steps {
		var next []any
		for _, n := range nodes {
			next = st.apply(n, next)
		}
		nodes = next
	}
	return nodes
}

func (st pathStep) apply(v any, out []any) []any {
	switch st.kind {
	case stepKey:
		if m, ok := v.(map[string]any); ok {
			if x, ok := m[st.key]; ok {
				out = append(out, x)
			}
		}
		return out
	}
	a, ok := v.([]any)
	if !ok {
		return out
	}
	switch st.kind {
	case stepIndex:
		i := st.index
		if i < 0 {
			i += len(a)
		}
		if i >= 0 && i < len(a) {
			out = append(out, a[i])
		}
	case stepAll:
		out = append(out, a...)
	case stepFilter:
		for _, e := range a {
			if st.filter.keeps(e) {
				out = append(out, e)
			}
		}
	}
	return out
}

func (f pathFilter) keeps(e any) bool {
	found := f.field.find(e)
	switch f.op {
	case "":
		return len(found) == 1 && found[0] != nil
	case "==":
		return len(found) == 1 && sameJSON(found[0], f.value)
	default:
		return !(len(found) == 1 && sameJSON(found[0], f.value))
	}
}

// sameJSON compares two decoded JSON scalars; numbers by value (1.0 is 1).
func sameJSON(a, b any) bool {
	na, aNum := a.(json.Number)
	nb, bNum := b.(json.Number)
	if aNum && bNum {
		fa, errA := na.Float64()
		fb, errB := nb.Float64()
		return na == nb || (errA == nil && errB == nil && fa == fb)
	}
	switch a.(type) {
	case string, bool, nil:
		return a == b
	}
	return false
}

// value is the one value the path reaches in v, or nil when it reaches
// none; a path that finds a list must find at most one value.
func (p jsonPath) value(v any) (any, error) {
	found := p.find(v)
	switch {
	case len(found) == 0:
		return nil, nil
	case p.multi && len(found) > 1:
		return nil, fmt.Errorf("%s finds %d values, want one", p.text, len(found))
	}
	return found[0], nil
}

// array is the array the path reaches in v: the list it finds when it
// has [*] or a filter, else the JSON array at its place.
func (p jsonPath) array(v any) ([]any, bool) {
	found := p.find(v)
	if p.multi {
		return found, true
	}
	if len(found) == 0 {
		return nil, false
	}
	a, ok := found[0].([]any)
	return a, ok
}

// dig is the one value at path in v, or nil (none, several, or a path
// that does not parse: load-time validation reports those).
func dig(v any, path string) any {
	p, err := parsePath(path)
	if err != nil {
		return nil
	}
	x, _ := p.value(v)
	return x
}

// jsonPathField checks a path field of the target file at load.
func (d *document) jsonPathField(field, text string) (jsonPath, error) {
	p, err := parsePath(text)
	if err != nil {
		return jsonPath{}, d.errorf(field, "%v", err)
	}
	return p, nil
}
