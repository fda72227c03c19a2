package targets

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// decode fills v from the document strictly: an unknown field, a missing
// required field or a value of the wrong type is an error naming the
// file, the line and the field's dotted path. It reads on past each
// (what it could not decode is left zero) and returns them all, a
// *FileError, or nil.
func (d *document) decode(v any) error {
	found := d.found
	d.found = newFindings(LoadOptions{})
	defer func() { d.found = found }()
	d.keep(d.walk(d.root, reflect.TypeOf(v).Elem(), ""))
	if err := d.root.Decode(v); err != nil {
		d.keep(d.typeError(err))
	}
	return d.found.err()
}

// walk checks the keys of a mapping node against a struct's yaml tags,
// keeping each unknown or missing field as a finding.
func (d *document) walk(n *yaml.Node, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Slice && n.Kind == yaml.SequenceNode && !reflect.PointerTo(t).Implements(unmarshaler) {
		return d.walkItems(n, t.Elem(), path)
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	// An empty value ("oracle:" and nothing under it) is a mapping with no
	// fields: its required fields are still missing.
	if n.Kind != yaml.MappingNode && n.Tag != "!!null" {
		return d.errorAt(n.Line, d.label(strings.TrimPrefix(path, ".")), "expected a mapping of fields")
	}
	known := map[string]reflect.StructField{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		known[strings.Split(f.Tag.Get("yaml"), ",")[0]] = f
	}
	present := map[string]bool{}
	kept := n.Content[:0]
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		f, ok := known[k.Value]
		field := strings.TrimPrefix(path+"."+k.Value, ".")
		if !ok {
			msg := "unknown field"
			if s := closest(k.Value, known); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			d.keep(d.errorAt(k.Line, d.label(field), "%s", msg))
			continue
		}
		kept = append(kept, k, val)
		present[k.Value] = true
		d.keep(d.walk(val, f.Type, field))
	}
	// The unknown fields, said, are dropped: decoding the rest must not
	// meet them (yaml.v3 compares a mapping's keys pair by pair, so a
	// file of many unknown keys would take minutes).
	n.Content = kept
	names := make([]string, 0, len(known))
	for name := range known {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if known[name].Tag.Get("required") == "true" && !present[name] {
			d.keep(d.errorAt(n.Line, d.label(strings.TrimPrefix(path+"."+name, ".")), "missing required field"))
		}
	}
	return nil
}

// walkItems checks that each item of a list of sections (setup:,
// operations:, tenants:) is a mapping: an empty one (setup: [null]) was
// dropped without a word. The items' own fields are checked where
// they are read, with messages of their own.
func (d *document) walkItems(n *yaml.Node, t reflect.Type, path string) error {
	e := t
	for e.Kind() == reflect.Pointer {
		e = e.Elem()
	}
	if e.Kind() != reflect.Struct {
		return nil
	}
	for i, item := range n.Content {
		if item.Kind == yaml.MappingNode {
			continue
		}
		what := item.Value
		if item.Tag == "!!null" {
			what = "null"
		}
		at := fmt.Sprintf("%s[%d]", strings.TrimPrefix(path, "."), i)
		d.keep(d.errorAt(item.Line, d.label(at), "expected a mapping of fields, not %s", what))
	}
	return nil
}

var unmarshaler = reflect.TypeFor[yaml.Unmarshaler]()

var yamlLine = regexp.MustCompile(`line (\d+): (.*)`)

// typeError rewrites each of yaml's "line N: cannot unmarshal ..." with
// the file name and the field at that line.
func (d *document) typeError(err error) error {
	lines := []string{err.Error()}
	var te *yaml.TypeError
	if errors.As(err, &te) {
		lines = te.Errors
	}
	found := newFindings(LoadOptions{})
	for _, e := range lines {
		m := yamlLine.FindStringSubmatch(e)
		if m == nil {
			found.add(Finding{File: d.name, Message: strings.TrimPrefix(e, "yaml: ")})
			continue
		}
		line, _ := strconv.Atoi(m[1])
		found.add(Finding{File: d.name, Line: line, Field: d.label(fieldAt(d.root, line, "")), Message: m[2]})
	}
	return found.err()
}

// fieldAt finds the dotted path of the field whose value spans line: at
// each level, the last key that starts on or before it.
func fieldAt(n *yaml.Node, line int, path string) string {
	if n.Kind != yaml.MappingNode {
		return path
	}
	for i := len(n.Content) - 2; i >= 0; i -= 2 {
		if k := n.Content[i]; k.Line <= line {
			return fieldAt(n.Content[i+1], line, strings.TrimPrefix(path+"."+k.Value, "."))
		}
	}
	return path
}

// closest suggests the known field nearest to a misspelled one.
func closest(word string, known map[string]reflect.StructField) string {
	best, bestDist := "", 3
	for k := range known {
		if dist := editDistance(word, k); dist < bestDist || (dist == bestDist && k < best) {
			best, bestDist = k, dist
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
