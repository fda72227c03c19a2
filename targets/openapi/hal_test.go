package openapi_test

import (
	"testing"

	"github.com/idemspec/idemspec/targets/openapi"
)

// halDocument is an API shaped as Mollie's (whose document's licence
// keeps it out of testdata): a HAL list, its items under
// _embedded.payments and its next page at _links.next.href, a key the
// create does not require, and a required filter the list takes.
const halDocument = `openapi: 3.0.3
info: {title: hal, version: '1'}
paths:
  /v2/payments:
    post:
      operationId: create-payment
      parameters: [{name: Idempotency-Key, in: header, required: false, schema: {type: string, format: uuid}}]
      requestBody:
        content:
          application/json:
            schema:
              required: [amount, description]
              properties:
                amount: {type: object, required: [currency, value], properties: {currency: {type: string, example: EUR}, value: {type: string, example: '10.00'}}}
                description: {type: string}
      responses:
        '201':
          description: made
          content:
            application/hal+json:
              schema: {$ref: '#/components/schemas/payment'}
    get:
      operationId: list-payments
      parameters:
        - {name: profileId, in: query, required: true, schema: {type: string}}
        - {name: from, in: query, schema: {type: string}}
        - {name: limit, in: query, schema: {type: integer}}
      responses:
        '200':
          description: a page
          content:
            application/hal+json:
              schema:
                properties:
                  count: {type: integer}
                  _embedded: {type: object, properties: {payments: {type: array, items: {$ref: '#/components/schemas/payment'}}}}
                  _links: {type: object, properties: {next: {type: object, nullable: true, properties: {href: {type: string}, type: {type: string}}}}}
components:
  schemas:
    payment:
      required: [id]
      properties:
        id: {type: string, readOnly: true}
        description: {type: string}
`

func TestHALList(t *testing.T) {
	doc, err := openapi.Load("hal.yaml", []byte(halDocument))
	if err != nil {
		t.Fatal(err)
	}
	d := draft(t, doc, openapi.Options{BaseURL: "http://127.0.0.1:9"}, []string{
		"  id_field: id",
		"  format: uuid",
		"  required: false",
		"    # TODO: oracle.list.path: the list requires profileId: give the value your account lists by",
		"    path: /v2/payments?profileId=idemspec",
		"    items: _embedded.payments",
		"    marker_field: description",
		"      next: url",
		"      field: _links.next.href",
	}, "")
	if len(d.TODOs) != 2 {
		t.Errorf("TODOs %q, want the required filter's and the unfiltered list's", d.TODOs)
	}
}
