package main_test

import (
	"fmt"
	"strings"
	"testing"
)

// A 3 KB document whose create requires 7 properties per level through
// $ref over 6 levels, each ending in minLength: 4096, died with "fatal
// error: out of memory" and a goroutine dump: init now drafts a bounded
// body, at once, and says in a TODO where it stopped.
func TestInitFromOpenAPIBoundsAFanOut(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: fan-out, version: '1'}\nservers: [{url: 'http://127.0.0.1:9'}]\npaths:\n  /orders:\n    post:\n      operationId: createOrder\n" +
		"      parameters: [{name: Idempotency-Key, in: header, schema: {type: string}}]\n" +
		"      requestBody: {content: {application/json: {schema: {$ref: '#/components/schemas/L0'}}}}\n" +
		"      responses: {'201': {description: ok, content: {application/json: {schema: {properties: {id: {type: string}}}}}}}\n" +
		"components:\n  schemas:\n")
	for l := range 6 {
		var props, req []string
		for i := range 7 {
			props = append(props, fmt.Sprintf("p%d: {$ref: '#/components/schemas/L%d'}", i, l+1))
			req = append(req, fmt.Sprintf("p%d", i))
		}
		fmt.Fprintf(&b, "    L%d: {type: object, required: [%s], properties: {%s}}\n", l, strings.Join(req, ", "), strings.Join(props, ", "))
	}
	b.WriteString("    L6: {type: string, minLength: 4096}\n")
	doc := writeFile(t, "fan-out.yaml", b.String())
	data := drafted(t, doc)
	if len(data) > 80<<10 || !strings.Contains(string(data), "# TODO: create.body: the schema's required properties fan out past what init drafts") {
		t.Errorf("a %d-byte document drafted %d bytes:\n%.3000s", b.Len(), len(data), data)
	}
}
