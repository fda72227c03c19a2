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

// draft drafts a file and checks that it holds every line of want, that
// it validates (invalid: "") or fails naming the field, and that
// validation lists each TODO as a warning.
func draft(t *testing.T, doc *openapi.Document, o openapi.Options, want []string, invalid string) openapi.Draft {
	t.Helper()
	d, err := doc.Draft(o)
	if err != nil {
		t.Fatal(err)
	}
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
	// The action on a resource: createResource makes its parent.
	d = draft(t, doc, openapi.Options{Operations: []string{"appendEvent"}}, []string{
		"name: appendEvent",
		"  - name: resource",
		"    path: /resources",
		`    body: '{"amount":10,"marker":"{{.Marker}}"}'`,
		"      Idempotency-Key: '{{.Key}}'",
		"  path: /resources/{{.Setup.resource.id}}/events",
		`  body: '{"amount":{{.Variant}},"marker":"{{.Marker}}"}'`,
		"    path: /resources/{{.Setup.resource.id}}/events?marker={{.Marker}}",
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
	t.Run("an action under a path parameter, its parent made by setup, a custom key header", func(t *testing.T) {
		d := draft(t, doc, openapi.Options{Operations: []string{"refundOrder"}, BaseURL: "http://127.0.0.1:9"}, []string{
			"base_url: http://127.0.0.1:9",
			// createOrder, POST /orders, makes the order: its body as a
			// create's, the marker in reference, its key header.
			"setup:",
			"  # {order_id} is the id of a parent made for each marker by createOrder (POST /orders): its answer's order_id.",
			"  - name: order",
			"    method: POST",
			"    path: /orders",
			"    content_type: application/json",
			`    body: '{"currency":"EUR","customer_email":"idemspec@example.com","quantity":1,"reference":"{{.Marker}}"}'`,
			"    headers:",
			"      Idempotency-Key: '{{.Key}}'",
			"  path: /orders/{{.Setup.order.order_id}}/refunds",
			`  body: '{"amount":{{.Variant}},"note":"{{.Marker}}","reason":"damaged"}'`,
			"  id_field: refund_id",
			"  name: PayPal-Request-Id",
			// The order's own refunds: read whole, they are the marker's alone.
			"    path: /orders/{{.Setup.order.order_id}}/refunds",
			`    items: ""`,
			"    marker_field: note",
		}, "")
		if len(d.TODOs) != 1 || !strings.HasPrefix(d.TODOs[0], "headers: ") {
			t.Errorf("TODOs %q, want only the token's", d.TODOs)
		}
	})
	t.Run("an action whose parent no POST makes", func(t *testing.T) {
		d := draft(t, doc, openapi.Options{Operations: []string{"addWishlistItem"}, BaseURL: "http://127.0.0.1:9"}, []string{
			"  # TODO: create.path: {wishlist_id} is a path parameter, and the document has no POST /wishlists to make its parent: " +
				"put the id of a resource that exists in its place (the oracle's path too), or add a setup: request that makes one " +
				"and write its id as {{.Setup.NAME.FIELD}} (docs/TARGET-FILE.md#actions-on-a-parent)",
			"  path: /wishlists/{wishlist_id}/items",
			"    path: /wishlists/{wishlist_id}/items",
		}, `create.path: "/wishlists/{wishlist_id}/items" holds the path parameter {wishlist_id}`)
		if strings.Contains(string(d.Text), "\nsetup:") {
			t.Errorf("a setup with no POST to draft it from:\n%s", d.Text)
		}
	})
	t.Run("a body key, a media example, a nested amount", func(t *testing.T) {
		draft(t, doc, openapi.Options{Operations: []string{"createPayment"}}, []string{
			`  body: '{"amount_money":{"amount":{{.Variant}},"currency":"USD"},"idempotency_key":"{{.Key}}","note":"{{.Marker}}","source_id":"cnon:card-nonce-ok"}'`,
			"  id_field: payment.id",
			"  in: body",
			"  name: idempotency_key",
			// Nothing lists or looks a payment up, and the answer names
			// its id: the draft counts from the wire, and validates.
			"# TODO: oracle: the document has no GET on this path to list what the create made, nor a GET of one: the wire oracle counts the ids of the create answers your API gave on idemspec's lanes (dropped ones included), which cannot see an execution whose answer was never written (S5b is skipped with it); count with a list, sql or command oracle if you can",
			"oracle:",
			"  wire: {}",
		}, "")
	})
	t.Run("a POST with no key", func(t *testing.T) {
		d := draft(t, doc, openapi.Options{Operations: []string{"createWebhook"}}, []string{
			"  name: Idempotency-Key",
		}, "create.id_field: missing required field")
		if !strings.Contains(strings.Join(d.TODOs, "\n"), "key: the operation declares no idempotency key") {
			t.Errorf("no TODO for the key in %q", d.TODOs)
		}
	})
	t.Run("every POST in one file", func(t *testing.T) {
		d := draft(t, doc, openapi.Options{All: true}, []string{
			"name: Shop",
			"base_url: https://eu.shop.example/v2",
			"  Authorization: 'Bearer ${API_TOKEN}'",
			"operations:",
			"  - name: create-order",
			"      path: /orders",
			"        path: /orders?reference={{.Marker}}",
			"  - name: refund-order",
			"    setup:", // in the operation's item
			"      - name: order",
			"        path: /orders",
			"      path: /orders/{{.Setup.order.order_id}}/refunds",
			"      name: PayPal-Request-Id",
			"  - name: create-payment",
			"    # TODO: operations[2].oracle: the document has no GET on this path to list what the create made, nor a GET of one: the wire oracle counts the ids of the create answers your API gave on idemspec's lanes (dropped ones included), which cannot see an execution whose answer was never written (S5b is skipped with it); count with a list, sql or command oracle if you can",
			"      wire: {}",
			"  - name: create-webhook",
			"    # TODO: operations[3].key: the operation declares no idempotency key: idemspec sends it in the Idempotency-Key header; say where your API takes it (in: header, body or query)",
			"  - name: add-wishlist-item",
		}, "operations[3].oracle: missing required field")
		// What the API shares is said once, at the top level.
		text := string(d.Text)
		for _, field := range []string{"\nbase_url:", "\nheaders:", "\n# TODO: base_url:", "\n# TODO: headers:"} {
			if n := strings.Count(text, field); n != 1 {
				t.Errorf("%q %d times, want once:\n%s", field, n, text)
			}
		}
		var names []string
		for _, p := range d.Plans {
			names = append(names, p.Name)
		}
		if got := strings.Join(names, " "); got != "create-order refund-order create-payment create-webhook add-wishlist-item" {
			t.Errorf("operations %s, want the 5 POSTs by path", got)
		}
		// Each TODO of an operation names its field under operations[i].
		for _, todo := range d.TODOs {
			if !strings.HasPrefix(todo, "base_url: ") && !strings.HasPrefix(todo, "headers: ") && !strings.HasPrefix(todo, "operations[") {
				t.Errorf("TODO %q names no operation", todo)
			}
		}
		if !strings.Contains(strings.Join(d.TODOs, "\n"), "operations[4].create.path: {wishlist_id} is a path parameter") {
			t.Errorf("no TODO for add-wishlist-item's path in %q", d.TODOs)
		}
	})
	if _, err := doc.Draft(openapi.Options{Operations: []string{"createOrdr"}}); err == nil || !strings.Contains(err.Error(), "createOrder, refundOrder, createPayment, createWebhook, addWishlistItem") {
		t.Errorf("an unknown operation: %v, want the POSTs listed", err)
	}
}

// A document whose operations say all idemspec needs drafts one file
// of them that validates with no TODO.
func TestReferenceTwiceDraftsTwoCompleteOperations(t *testing.T) {
	d := draft(t, load(t, "testdata/reference-twice.yaml"), openapi.Options{All: true}, []string{
		"base_url: http://127.0.0.1:8080",
		"  - name: create-order",
		"      path: /orders",
		"      in: header",
		"      name: Idempotency-Key",
		"        path: /orders?marker={{.Marker}}",
		"  - name: create-payment",
		`      body: '{"amount":{{.Variant}},"idempotency_key":"{{.Key}}","marker":"{{.Marker}}"}'`,
		"      in: body",
		"      name: idempotency_key",
		"        path: /payments?marker={{.Marker}}",
	}, "")
	if len(d.TODOs) != 0 || len(d.Plans) != 2 {
		t.Errorf("%d operations, TODOs %q; want 2 and none", len(d.Plans), d.TODOs)
	}
	target, err := targets.Parse("drafted.yaml", d.Text)
	if err != nil {
		t.Fatal(err)
	}
	if ops := target.Each(); len(ops) != 2 || ops[0].Operation != "create-order" || ops[1].Operation != "create-payment" {
		t.Errorf("the file's operations: %v", ops)
	}
}

// Operation names are the operationIds in lower case, their words split
// by dashes, made unique; the credentials go with every operation, with
// a TODO when the operations do not all need them.
func TestOperationNames(t *testing.T) {
	post := func(id, security string) string {
		return "    post:\n" + id + security + "      responses: {'201': {description: created}}\n"
	}
	doc, err := openapi.Load("names.yaml", []byte("openapi: 3.0.3\ninfo: {title: names, version: '1'}\n"+
		"components: {securitySchemes: {key: {type: apiKey, in: header, name: X-Api-Key}}}\nsecurity: [{key: []}]\npaths:\n"+
		"  /a:\n"+post("      operationId: createOrder\n", "")+
		"  /b:\n"+post("      operationId: create_order\n", "")+
		"  /c:\n"+post("      operationId: v2/getHTTPStatus\n", "      security: []\n")+
		"  /d/{id}:\n"+post("", "")))
	if err != nil {
		t.Fatal(err)
	}
	d, err := doc.Draft(openapi.Options{All: true, KeyHeader: "Idempotency-Key"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range d.Plans {
		names = append(names, p.Name)
	}
	if got := strings.Join(names, " "); got != "create-order create-order-2 v2-get-http-status post-d-id" {
		t.Errorf("names %s", got)
	}
	text := string(d.Text)
	if !strings.Contains(text, "\n# TODO: headers: the operations do not all take the same credentials") || !strings.Contains(text, "\n  X-Api-Key: ${API_KEY}\n") {
		t.Errorf("no shared X-Api-Key with a TODO in:\n%s", text)
	}
	if _, err := targets.Parse("names.yaml", d.Text); err == nil || !strings.Contains(err.Error(), "names.yaml:18: operations[0].create.body: missing required field") {
		t.Errorf("validation: %v, want the first operation's body missing", err)
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

// Each path parameter's parent is made by the POST on the collection
// before it, the outermost first: its key where that POST declares it
// (the body, the query), its id where its answer has it, its name the
// parameter's without the id suffix, else the collection's. A parameter
// without such a POST keeps its place and a TODO saying why, and so does
// every parameter after it.
func TestActionsOnParents(t *testing.T) {
	created := func(schema string) string {
		return "      responses: {'201': {description: made, content: {application/json: {schema: " + schema + "}}}}\n"
	}
	const id = "{properties: {id: {type: string}}}"
	doc, err := openapi.Load("parents.yaml", []byte("openapi: 3.0.3\ninfo: {title: parents, version: '1'}\nservers: [{url: 'http://127.0.0.1:8080'}]\n"+
		"components: {securitySchemes: {key: {type: apiKey, in: header, name: X-Shop-Key}}}\npaths:\n"+
		"  /shops:\n    post:\n      operationId: createShop\n      security: [{key: []}]\n"+
		"      requestBody: {content: {application/json: {schema: {required: [name, idempotency_key], properties: {name: {type: string}, idempotency_key: {type: string}}}}}}\n"+
		created("{properties: {data: {properties: {id: {type: string}}}}}")+
		"  /shops/{shopId}/carts:\n    post:\n      operationId: createCart\n"+
		"      parameters: [{name: shopId, in: path, required: true}, {name: idempotency_key, in: query}]\n"+
		created("{properties: {cart_id: {type: string}}}")+
		"  /shops/{shopId}/carts/{cart_id}/lines:\n"+
		"    post:\n      operationId: addLine\n      parameters: [{name: Idempotency-Key, in: header}]\n"+
		"      requestBody: {content: {application/json: {schema: {properties: {note: {type: string}, quantity: {type: integer}}}}}}\n"+
		created(id)+
		"    get:\n      parameters: [{name: note, in: query, schema: {type: string}}]\n"+
		"      responses: {'200': {description: lines, content: {application/json: {schema: {properties: {items: {type: array, items: "+id+"}}}}}}}\n"+
		"  /bins:\n    post:\n"+created(id)+
		"  /bins/{id}/bins:\n    post:\n"+created(id)+
		"  /bins/{id}/bins/{bin_id}/tags:\n    post:\n      operationId: tagBin\n"+created(id)+
		"  /tills/{till_id}/sales/{sale_id}/voids:\n    post:\n      operationId: voidSale\n"+created(id)+
		"  /tills/{till_id}/sales:\n    post:\n"+created(id)+
		"  /vaults:\n    post:\n      responses: {'201': {description: made}}\n"+
		"  /vaults/{vault_id}/deposits:\n    post:\n      operationId: deposit\n"+created(id)+
		"  /{region}/stores:\n    post:\n      operationId: openStore\n"+created(id)))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("API_KEY", "a-shop-key-long-enough-to-redact")
	d := draft(t, doc, openapi.Options{Operations: []string{"addLine"}}, []string{
		// The setup goes with the file's headers: they hold the key
		// createShop needs, though addLine needs none.
		"  X-Shop-Key: ${API_KEY}",
		"setup:",
		"  # {shopId} is the id of a parent made for each marker by createShop (POST /shops): its answer's data.id.",
		"  - name: shop",
		"    path: /shops",
		`    body: '{"idempotency_key":"{{.Key}}","name":"{{.Marker}}"}'`,
		"  # {cart_id} is the id of a parent made for each marker by createCart (POST /shops/{shopId}/carts): its answer's cart_id.",
		"  - name: cart",
		// No body, the key in the query: the parent's path is the
		// action's, with the shop's id in its place.
		"    path: /shops/{{.Setup.shop.data.id}}/carts?idempotency_key={{.Key}}",
		"  path: /shops/{{.Setup.shop.data.id}}/carts/{{.Setup.cart.cart_id}}/lines",
		"    path: /shops/{{.Setup.shop.data.id}}/carts/{{.Setup.cart.cart_id}}/lines?note={{.Marker}}",
	}, "")
	if len(d.TODOs) != 2 || !strings.HasPrefix(d.TODOs[0], "headers: the operations do not all take the same credentials") ||
		strings.Count(string(d.Text), "\n    body: ") != 1 || strings.Contains(string(d.Text), "    headers:\n") {
		t.Errorf("TODOs %q; want the headers' alone, one setup body, no setup header:\n%s", d.TODOs, d.Text)
	}
	// Two parents of one collection's name.
	draft(t, doc, openapi.Options{Operations: []string{"tagBin"}, KeyHeader: "Idempotency-Key"}, []string{
		"  - name: bin",
		"    path: /bins",
		"  - name: bin_2",
		"    path: /bins/{{.Setup.bin.id}}/bins",
		"  path: /bins/{{.Setup.bin.id}}/bins/{{.Setup.bin_2.id}}/tags",
	}, "create.body: missing required field")

	todo := func(param, why string) string {
		return "create.path: {" + param + "} is a path parameter, and " + why + ": put the id of a resource that exists in its place"
	}
	for op, whys := range map[string][]string{
		"voidSale": {todo("till_id", "the document has no POST /tills to make its parent"),
			todo("sale_id", "its parent's path holds {till_id}, whose parent could not be drafted")},
		"deposit":   {todo("vault_id", "POST /vaults, which would make its parent, declares no id in its 2xx answer")},
		"openStore": {todo("region", "no collection precedes it whose POST would make its parent")},
	} {
		d, err := doc.Draft(openapi.Options{Operations: []string{op}, KeyHeader: "Idempotency-Key"})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, todo := range d.TODOs {
			if strings.HasPrefix(todo, "create.path: ") {
				got = append(got, todo)
			}
		}
		if len(got) != len(whys) || strings.Contains(string(d.Text), "\nsetup:") {
			t.Errorf("%s: path TODOs %q, want %d and no setup:\n%s", op, got, len(whys), d.Text)
			continue
		}
		for i, why := range whys {
			if !strings.HasPrefix(got[i], why) {
				t.Errorf("%s: TODO %q, want it to start %q", op, got[i], why)
			}
		}
	}
}

// The id in a 2xx answer that has no id: the resource's own, then a
// name ending like an id, then like a reference.
func TestIDField(t *testing.T) {
	for answer, want := range map[string]string{
		"{properties: {id: {type: string}, order_id: {type: string}}}":              "id",
		"{properties: {customer_id: {type: string}, payment_id: {type: string}}}":   "payment_id",
		"{properties: {pspReference: {type: string}, status: {type: string}}}":      "pspReference",
		"{properties: {payment: {properties: {paymentReference: {type: string}}}}}": "payment.paymentReference",
		// The merchant's id is the caller's, never what the create made.
		"{properties: {merchantId: {type: integer}, pspReference: {type: string}}}": "pspReference",
		// Required and read-only first; never a property the request sets.
		"{properties: {product_id: {type: string}, token: {type: string}}, required: [token]}":          "token",
		"{properties: {order_id: {type: string}, id: {type: string, readOnly: true}}}":                  "id",
		"{properties: {merchantReference: {type: string}, pspReference: {type: string}}}":               "pspReference",
		"{properties: {reference: {type: string}, transfer_id: {type: string}}, required: [reference]}": "transfer_id",
		"{properties: {status: {type: string}, amount: {type: integer}}}":                               "",
	} {
		doc, err := openapi.Load("ids.yaml", []byte("openapi: 3.0.3\ninfo: {title: ids, version: '1'}\npaths:\n  /payments:\n    post:\n"+
			"      operationId: pay\n      parameters: [{name: Idempotency-Key, in: header}]\n"+
			"      requestBody: {content: {application/json: {schema: {properties: {reference: {type: string}}}}}}\n"+
			"      responses: {'201': {description: made, content: {application/json: {schema: "+answer+"}}}}\n"))
		if err != nil {
			t.Fatal(err)
		}
		d, err := doc.Draft(openapi.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, line := range strings.Split(string(d.Text), "\n") {
			if v, ok := strings.CutPrefix(line, "  id_field: "); ok {
				got = v
			}
		}
		if got != want {
			t.Errorf("%s: id_field %q, want %q", answer, got, want)
		}
	}
}

// The marker goes only in free text the API gives back, the variant
// only in an amount: never an enum, a code, a token or an id for the
// one, never an unrelated integer for the other.
func TestMarkerAndVariantPlaces(t *testing.T) {
	for schema, want := range map[string]string{
		// A delay in hours is no amount; the variant goes in a second free text.
		"{properties: {delay_hours: {type: integer}, description: {type: string}, note: {type: string}}}": `{"description":"{{.Marker}}","note":"v{{.Variant}}"}`,
		// Codes, tokens and ids are never the marker.
		"{required: [currency, country, payment_token, order_id], properties: {currency: {type: string}, country: {type: string}, payment_token: {type: string}, order_id: {type: string}, amount: {type: integer}, reason: {type: string}}}": `{"amount":{{.Variant}},"country":"US","currency":"usd","order_id":"idemspec","payment_token":"idemspec","reason":"{{.Marker}}"}`,
		// An enum, a format or a pattern is never the marker: a metadata map is.
		"{properties: {kind: {type: string, enum: [a, b]}, description: {type: string, pattern: '^[a-z]+$'}, metadata: {type: object, additionalProperties: {type: string}}, quantity: {type: integer}}}": `{"metadata":{"idemspec_marker":"{{.Marker}}"},"quantity":{{.Variant}}}`,
		// An amount in cents, and a decimal string inside an array item.
		"{properties: {amount: {type: integer, description: 'in the smallest currency unit'}, note: {type: string}}}":                                                                                                                                                 `{"amount":{{.Variant}}00,"note":"{{.Marker}}"}`,
		"{required: [units], properties: {units: {type: array, minItems: 1, items: {required: [price], properties: {price: {required: [value], properties: {value: {type: string, pattern: '^[0-9]+(\\.[0-9]+)?$'}}}, custom_id: {type: string, maxLength: 127}}}}}}": `{"units":[{"custom_id":"{{.Marker}}","price":{"value":"{{.Variant}}.00"}}]}`,
	} {
		doc, err := openapi.Load("places.yaml", []byte("openapi: 3.0.3\ninfo: {title: places, version: '1'}\npaths:\n  /payments:\n    post:\n"+
			"      operationId: pay\n      parameters: [{name: Idempotency-Key, in: header}]\n"+
			"      requestBody: {content: {application/json: {schema: "+schema+"}}}\n"+
			"      responses: {'201': {description: made, content: {application/json: {schema: {properties: {id: {type: string}}}}}}}\n"))
		if err != nil {
			t.Fatal(err)
		}
		d, err := doc.Draft(openapi.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(d.Text), "\n  body: '"+want+"'\n") {
			t.Errorf("%s: want body %s in:\n%s", schema, want, d.Text)
		}
	}
}
