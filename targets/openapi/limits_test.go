package openapi_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemspec/idemspec/targets/openapi"
)

// chain is a document whose create's body is the head of a chain of n
// references to references, under components' kind ("schemas",
// "requestBodies").
func chain(kind string, n int) []byte {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: chain, version: '1'}\npaths:\n  /a:\n    post:\n      operationId: create\n")
	if kind == "schemas" {
		b.WriteString("      requestBody: {content: {application/json: {schema: {$ref: '#/components/schemas/S0'}}}}\n")
	} else {
		b.WriteString("      requestBody: {$ref: '#/components/requestBodies/S0'}\n")
	}
	b.WriteString("      responses: {'201': {description: ok}}\ncomponents:\n  " + kind + ":\n")
	for i := range n {
		fmt.Fprintf(&b, "    S%d: {$ref: '#/components/%s/S%d'}\n", i, kind, i+1)
	}
	if kind == "schemas" {
		fmt.Fprintf(&b, "    S%d: {properties: {note: {type: string}}}\n", n)
	} else {
		fmt.Fprintf(&b, "    S%d: {content: {application/json: {schema: {properties: {note: {type: string}}}}}}\n", n)
	}
	return []byte(b.String())
}

// A chain of references to references is refused before kin-openapi
// follows it (it would follow it again from each link: 4000 links took
// 17 s, 100000 longer than 5 minutes); a real document's short aliases
// load, and so do references nested in properties, however deep.
func TestReferenceChainsAreBounded(t *testing.T) {
	for _, kind := range []string{"schemas", "requestBodies"} {
		for _, n := range []int{4000, 100000} {
			_, err := openapi.Load("chain.yaml", chain(kind, n))
			want := fmt.Sprintf("chain.yaml: /paths/~1a/post/requestBody%s starts a chain of %d references to references, more than the 64 init follows",
				map[string]string{"schemas": "/content/application~1json/schema", "requestBodies": ""}[kind], n+1)
			if err == nil || err.Error() != want {
				t.Errorf("%s, %d links: %v, want %q", kind, n, err, want)
			}
		}
		if _, err := openapi.Load("chain.yaml", chain(kind, 62)); err != nil {
			t.Errorf("%s, 62 links: %v", kind, err)
		}
	}
	var nested strings.Builder
	nested.WriteString("openapi: 3.0.3\ninfo: {title: nested, version: '1'}\npaths:\n  /a:\n    post:\n" +
		"      requestBody: {content: {application/json: {schema: {$ref: '#/components/schemas/S0'}}}}\n" +
		"      responses: {'201': {description: ok}}\ncomponents:\n  schemas:\n")
	for i := range 2000 {
		fmt.Fprintf(&nested, "    S%d: {properties: {next: {$ref: '#/components/schemas/S%d'}}}\n", i, i+1)
	}
	nested.WriteString("    S2000: {properties: {note: {type: string}}}\n")
	if _, err := openapi.Load("nested.yaml", []byte(nested.String())); err != nil {
		t.Errorf("references nested 2000 deep: %v", err)
	}
	cycle := "openapi: 3.0.3\ninfo: {title: cycle, version: '1'}\npaths: {/a: {post: {responses: {'201': {description: ok}}}}}\n" +
		"components: {schemas: {A: {$ref: '#/components/schemas/B'}, B: {$ref: '#/components/schemas/A'}}}\n"
	if _, err := openapi.Load("cycle.yaml", []byte(cycle)); err == nil || !strings.Contains(err.Error(), "/components/schemas/A is a $ref to a $ref ... that comes back to itself") {
		t.Errorf("a cycle of references: %v", err)
	}
}

// A document over MaxDocument is refused with its size, before it is
// parsed.
func TestLoadRefusesADocumentOverTheCap(t *testing.T) {
	data := []byte("openapi: 3.0.3\n" + strings.Repeat("#", openapi.MaxDocument))
	_, err := openapi.Load("big.yaml", data)
	if want := "big.yaml: the document is 16.0 MiB, larger than the 16 MiB init reads"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("%v, want %q", err, want)
	}
	if _, err := openapi.Load("small.yaml", data[:1000]); err == nil || strings.Contains(err.Error(), "MiB") {
		t.Errorf("a small document: %v, want kin-openapi's error, not the cap", err)
	}
}

// A mapping so wide that kin-openapi's YAML decoder would compare its
// keys for minutes is refused, before it is decoded, naming it.
func TestLoadRefusesAMappingTooWide(t *testing.T) {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: wide, version: '1'}\npaths: {/a: {post: {responses: {'201': {description: ok}}}}}\ncomponents:\n  schemas:\n")
	for i := range 16000 {
		fmt.Fprintf(&b, "    S%d: {type: string}\n", i)
	}
	_, err := openapi.Load("wide.yaml", []byte(b.String()))
	if want := "wide.yaml: /components/schemas has 16000 keys: a document of mappings this wide takes kin-openapi minutes to read"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("%v, want %q", err, want)
	}
	// As JSON too.
	var keys []string
	for i := range 16000 {
		keys = append(keys, fmt.Sprintf(`"S%d": {"type": "string"}`, i))
	}
	json := `{"openapi": "3.0.3", "info": {"title": "wide", "version": "1"}, "paths": {"/a": {"post": {"responses": {"201": {"description": "ok"}}}}}, ` +
		`"components": {"schemas": {` + strings.Join(keys, ", ") + "}}}"
	if _, err := openapi.Load("wide.json", []byte(json)); err == nil || !strings.Contains(err.Error(), "/components/schemas has 16000 keys") {
		t.Errorf("as JSON: %v", err)
	}
}

// BenchmarkAliasChain sets, side by side, the time kin-openapi alone
// takes to load a document whose body is a chain of links references
// to references, and the time Load takes to refuse it: the chain is
// followed once, in time linear in its length, instead of again from
// each link. Measured on 2 busy cores: 250 links, 221 ms against 6 ms
// (ratio 39); 1000 links, 4.7 s against 22 ms (ratio 213): the ratio
// grows with the chain, as a square over a line does.
func BenchmarkAliasChain(b *testing.B) {
	for _, links := range []int{250, 1000} {
		b.Run(fmt.Sprintf("links=%d", links), func(b *testing.B) {
			data := chain("schemas", links)
			var kin, refused time.Duration
			for b.Loop() {
				start := time.Now()
				if _, err := openapi3.NewLoader().LoadFromData(data); err != nil {
					b.Fatal(err)
				}
				kin += time.Since(start)
				start = time.Now()
				if _, err := openapi.Load("chain.yaml", data); err == nil {
					b.Fatal("a chain over the cap loaded")
				}
				refused += time.Since(start)
			}
			b.ReportMetric(float64(kin.Milliseconds())/float64(b.N), "kin-ms/op")
			b.ReportMetric(float64(refused.Microseconds())/1000/float64(b.N), "refused-ms/op")
			b.ReportMetric(float64(kin)/float64(refused), "ratio")
		})
	}
}
