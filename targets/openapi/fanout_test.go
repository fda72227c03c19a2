package openapi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/targets/openapi"
)

// fanOut is a document whose create's body requires n properties per
// level, each a $ref to the next level, over levels levels, ending in a
// string of minLength 4096: n^levels strings of 4 KiB in a sample body
// expanded in full.
func fanOut(n, levels int) []byte {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: fan-out, version: '1'}\npaths:\n  /orders:\n    post:\n      operationId: createOrder\n" +
		"      parameters: [{name: Idempotency-Key, in: header, required: true, schema: {type: string}}]\n" +
		"      requestBody: {content: {application/json: {schema: {$ref: '#/components/schemas/L0'}}}}\n" +
		"      responses: {'201': {description: ok, content: {application/json: {schema: {properties: {id: {type: string}}}}}}}\n" +
		"components:\n  schemas:\n")
	for l := range levels {
		var props, req []string
		for i := range n {
			props = append(props, fmt.Sprintf("p%d: {$ref: '#/components/schemas/L%d'}", i, l+1))
			req = append(req, fmt.Sprintf("p%d", i))
		}
		if l == 0 {
			props = append(props, "note: {type: string}", "amount: {type: integer}")
		}
		fmt.Fprintf(&b, "    L%d: {type: object, required: [%s], properties: {%s}}\n", l, strings.Join(req, ", "), strings.Join(props, ", "))
	}
	fmt.Fprintf(&b, "    L%d: {type: string, minLength: 4096}\n", levels)
	return []byte(b.String())
}

// allOfFanOut is a document whose create's body is allOf k times the
// next level, over levels levels: flattening it in full visits
// k^levels schemas.
func allOfFanOut(k, levels int) []byte {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: all-of, version: '1'}\npaths:\n  /orders:\n    post:\n      operationId: createOrder\n" +
		"      parameters: [{name: Idempotency-Key, in: header, required: true, schema: {type: string}}]\n" +
		"      requestBody: {content: {application/json: {schema: {$ref: '#/components/schemas/A0'}}}}\n" +
		"      responses: {'201': {description: ok, content: {application/json: {schema: {properties: {id: {type: string}}}}}}}\n" +
		"components:\n  schemas:\n")
	for l := range levels {
		var all []string
		for range k {
			all = append(all, fmt.Sprintf("{$ref: '#/components/schemas/A%d'}", l+1))
		}
		fmt.Fprintf(&b, "    A%d: {allOf: [%s], required: [a%d], properties: {a%d: {$ref: '#/components/schemas/A%d'}}}\n", l, strings.Join(all, ", "), l, l, l+1)
	}
	fmt.Fprintf(&b, "    A%d: {type: object, required: [note], properties: {note: {type: string, minLength: 4096}, amount: {type: integer}}}\n", levels)
	return []byte(b.String())
}

// A 2 KB document whose required properties fan out through $ref (N
// per level over 6 levels, ending in minLength: 4096) or through allOf
// (K members per level) drafted a 64 MB body, or died out of memory,
// or took seconds walking K^6 schemas: the sample body is bounded by
// size and the walk by the schemas it visits, and the draft says in a
// TODO where the body stopped.
func TestFanOutIsBounded(t *testing.T) {
	for _, c := range []struct {
		name string
		doc  []byte
	}{
		{"$ref 5 per level", fanOut(5, 6)},
		{"$ref 8 per level", fanOut(8, 6)},
		{"$ref 40 per level", fanOut(40, 6)},
		{"allOf 8 per level", allOfFanOut(8, 6)},
		{"allOf 40 per level", allOfFanOut(40, 6)},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc, err := openapi.Load(c.name, c.doc)
			if err != nil {
				t.Fatal(err)
			}
			d, err := doc.Draft(openapi.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if limit := openapi.MaxSampleBody + 16<<10; len(d.Text) > limit {
				t.Errorf("a %d-byte document drafted %d bytes, over %d", len(c.doc), len(d.Text), limit)
			}
			if !strings.Contains(string(d.Text), "# TODO: create.body: the schema's required properties fan out past what init drafts") ||
				!strings.Contains(string(d.Text), "the sample body stops at ") {
				t.Errorf("the draft does not say where its body stopped:\n%.3000s", d.Text)
			}
		})
	}
}

// A body within the bounds is drafted whole, with no such TODO.
func TestSmallFanOutIsDraftedWhole(t *testing.T) {
	doc, err := openapi.Load("small", fanOut(2, 3))
	if err != nil {
		t.Fatal(err)
	}
	d, err := doc.Draft(openapi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(d.Text), "fan out past") || strings.Count(string(d.Text), strings.Repeat("x", 4000)) != 8 {
		t.Errorf("the draft of 2 properties over 3 levels is not whole:\n%.2000s", d.Text)
	}
}
