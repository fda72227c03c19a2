package openapi_test

import (
	"os"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/targets"
	"github.com/idemspec/idemspec/targets/openapi"
)

func load(t *testing.T, file string) *openapi.Document {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi.Load(file, data)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// draft drafts one operation and checks that the file holds every line
// of want, that it validates (invalid: "") or fails naming the field,
// and that validation lists each TODO as a warning.
func draft(t *testing.T, doc *openapi.Document, o openapi.Options, want []string, invalid string) openapi.Draft {
	t.Helper()
	drafts, err := doc.Drafts(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(drafts) != 1 {
		t.Fatalf("%d drafts, want 1", len(drafts))
	}
	d := drafts[0]
	text := string(d.Text)
	for _, line := range want {
		if !strings.Contains(text, "\n"+line+"\n") {
			t.Errorf("no line %q in:\n%s", line, text)
		}
	}
	if n := strings.Count(text, "# TODO: "); n != len(d.TODOs) {
		t.Errorf("%d TODO lines, %d TODOs reported", n, len(d.TODOs))
	}
	target, err := targets.Parse("drafted.yaml", d.Text)
	switch {
	case invalid == "" && err != nil:
		t.Errorf("the drafted file does not validate: %v\n%s", err, text)
	case invalid != "" && (err == nil || !strings.Contains(err.Error(), invalid)):
		t.Errorf("validation: %v, want an error naming %q\n%s", err, invalid, text)
	case err == nil && len(target.Warnings) != len(d.TODOs):
		t.Errorf("validate warned %q, want one warning per TODO %q", target.Warnings, d.TODOs)
	}
	return d
}

func TestReferenceServerDocumentDraftsAFileWithNoTODO(t *testing.T) {
	doc := load(t, "testdata/reference.yaml")
	d := draft(t, doc, openapi.Options{}, []string{
		"name: createResource",
		"base_url: http://127.0.0.1:8080",
		"  method: POST",
		"  path: /resources",
		"  content_type: application/json",
		`  body: '{"amount":{{.Variant}},"marker":"{{.Marker}}"}'`,
		"  id_field: id",
		"  in: header",
		"  name: Idempotency-Key",
		"    path: /resources?marker={{.Marker}}",
		"    items: items",
		"    marker_field: marker",
	}, "")
	if len(d.TODOs) != 0 {
		t.Errorf("TODOs %q, want none", d.TODOs)
	}
}

func TestShop31(t *testing.T) {
	t.Setenv("API_TOKEN", "a-token-long-enough-to-redact")
	doc := load(t, "testdata/shop-3.1.yaml")
	t.Run("the first keyed POST, allOf merged, a cursor", func(t *testing.T) {
		d := draft(t, doc, openapi.Options{}, []string{
			"name: createOrder",
			"base_url: https://eu.shop.example/v2", // the server's variable at its default
			"  Authorization: 'Bearer ${API_TOKEN}'",
			// OrderBase's required fields and the allOf member's quantity;
			// the marker in reference, the list's filter (a 3.1 nullable string).
			`  body: '{"currency":"EUR","customer_email":"idemspec@example.com","quantity":{{.Variant}},"reference":"{{.Marker}}"}'`,
			"  id_field: order_id", // the resource's own id, not customer_id
			"  name: Idempotency-Key",
			"    path: /orders?reference={{.Marker}}",
			"    items: results",
			"    marker_field: reference",
			"      next: cursor",
			"      field: next_page_token",
			"      param: page_token",
		}, "")
		if len(d.TODOs) != 2 || !strings.HasPrefix(d.TODOs[0], "base_url: ") || !strings.HasPrefix(d.TODOs[1], "headers: ") {
			t.Errorf("TODOs %q, want base_url (not loopback) and headers", d.TODOs)
		}
	})
	t.Run("an action under a path parameter, a custom key header", func(t *testing.T) {
		draft(t, doc, openapi.Options{Operations: []string{"refundOrder"}, BaseURL: "http://127.0.0.1:9"}, []string{
			"base_url: http://127.0.0.1:9",
			"  # TODO: create.path: {order_id} is a path parameter: put the id of a resource that exists in its place (the oracle's path too)",
			`  body: '{"amount":{{.Variant}},"note":"{{.Marker}}","reason":"damaged"}'`,
			"  id_field: refund_id",
			"  name: PayPal-Request-Id",
			`    items: ""`,
			"    marker_field: note",
		}, `create.path: "/orders/{order_id}/refunds" holds the path parameter {order_id}`)
	})
	t.Run("a body key, a media example, a nested amount", func(t *testing.T) {
		draft(t, doc, openapi.Options{Operations: []string{"createPayment"}}, []string{
			`  body: '{"amount_money":{"amount":{{.Variant}},"currency":"USD"},"idempotency_key":"{{.Key}}","note":"{{.Marker}}","source_id":"cnon:card-nonce-ok"}'`,
			"  id_field: payment.id",
			"  in: body",
			"  name: idempotency_key",
			"# TODO: oracle: the document has no GET on this path to list what the create made: describe how to count what exists (oracle: list, sql, command or lookup)",
		}, "oracle: missing required field")
	})
	t.Run("a POST with no key", func(t *testing.T) {
		d := draft(t, doc, openapi.Options{Operations: []string{"createWebhook"}}, []string{
			"  name: Idempotency-Key",
		}, "create.id_field: missing required field")
		if !strings.Contains(strings.Join(d.TODOs, "\n"), "key: the operation declares no idempotency key") {
			t.Errorf("no TODO for the key in %q", d.TODOs)
		}
	})
	all, err := doc.Drafts(openapi.Options{All: true})
	if err != nil || len(all) != 4 {
		t.Errorf("--all: %d drafts, %v; want the 4 POSTs", len(all), err)
	}
	if _, err := doc.Drafts(openapi.Options{Operations: []string{"createOrdr"}}); err == nil || !strings.Contains(err.Error(), "createOrder, refundOrder, createPayment, createWebhook") {
		t.Errorf("an unknown operation: %v, want the POSTs listed", err)
	}
}

func TestLoadRefusesWhatIsNotOpenAPI3(t *testing.T) {
	for name, data := range map[string]string{
		"swagger.yaml":  "swagger: '2.0'\ninfo: {title: x, version: '1'}\npaths: {}\n",
		"garbage.json":  "{not json",
		"external.yaml": "openapi: 3.0.3\ninfo: {title: x, version: '1'}\npaths:\n  /a:\n    post:\n      requestBody: {$ref: 'other.yaml#/b'}\n      responses: {'201': {description: ok}}\n",
	} {
		if _, err := openapi.Load(name, []byte(data)); err == nil || !strings.HasPrefix(err.Error(), name+": ") {
			t.Errorf("%s: %v, want an error naming the file", name, err)
		}
	}
}
