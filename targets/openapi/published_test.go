package openapi_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/idemspec/idemspec/targets/openapi"
)

// Two more published documents, gzipped as fetched (docs/OPENAPI.md):
//   - adyen-CheckoutService-v71.json.gz and adyen-TransferService-v4.json.gz:
//     github.com/Adyen/adyen-openapi, json/ at aa014f0 (2026-07-01, MIT,
//     adyen-LICENSE);
//   - lithic-openapi.yml.gz: github.com/lithic-com/lithic-openapi,
//     lithic-openapi.yml at 225e070 (2026-08-20, Apache-2.0,
//     lithic-LICENSE).
var (
	checkoutDoc  = sync.OnceValues(func() (*openapi.Document, error) { return gunzipped("adyen-CheckoutService-v71.json") })
	transfersDoc = sync.OnceValues(func() (*openapi.Document, error) { return gunzipped("adyen-TransferService-v4.json") })
	lithicDoc    = sync.OnceValues(func() (*openapi.Document, error) { return gunzipped("lithic-openapi.yml") })
)

// On five published documents the default draft names the API's own id
// (never the caller's reference the answer echoes, never an optional
// one), carries what the document says of the key, drafts the list
// wherever the document has one (a next link, a cursor by the id, the
// list's required filters), and validates; every request it would send
// validates against the document.
func TestPublishedDefaultDrafts(t *testing.T) {
	for _, c := range []struct {
		name     string
		doc      func() (*openapi.Document, error)
		o        openapi.Options
		maxTODOs int
		want     []string
		has      string // a part of a line
	}{
		{"Stripe", stripe, openapi.Options{KeyHeader: "Idempotency-Key"}, 2, []string{
			"  id_field: id",
			"    path: /v1/payment_intents",
			"    items: data",
			"      field: data[-1].id",
		}, ""},
		{"Square", squareDoc, openapi.Options{}, 2, []string{
			"  id_field: payment.id",
			"  name: idempotency_key",
			"  required: true",
			"    items: payments",
			"      next: cursor",
		}, ""},
		{"PayPal", ordersDoc, openapi.Options{}, 2, []string{
			"  id_field: id",
			"  name: PayPal-Request-Id",
			"  required: false",
			// PayPal's orders have no list: the GET of one order.
			"    path: /v2/checkout/orders/{{.ID}}",
		}, ""},
		{"Adyen Transfers", transfersDoc, openapi.Options{}, 2, []string{
			// Its own id, not the reference the marker is in.
			"  # id_field id: named like an id, not set by the request; not reference, which echoes what the request sent.",
			"  id_field: id",
			"  required: false",
			// The window the list requires, and its next link.
			"    path: /transfers?reference={{.Marker}}&createdSince={{.Since}}&createdUntil={{.Until}}",
			"    items: data",
			"      next: url",
			"      field: _links.next.href",
		}, `"balanceAccountId":"BAB8B2C3D4E5F6G7H8D9J6GD4"`}, // in every example: required in practice
		{"Lithic", lithicDoc, openapi.Options{}, 2, []string{
			// The card's token (required), not its optional product_id.
			"  id_field: token",
			"  format: uuid",
			"  required: false",
			"    items: data",
			"      field: data[-1].token",
		}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("API_KEY", "a-key-long-enough-to-redact")
			d := publicDraft(t, public(t, c.doc), c.o, c.maxTODOs, c.want...)
			if !strings.Contains(string(d.Text), c.has) {
				t.Errorf("no %s in:\n%s", c.has, d.Text)
			}
			if !strings.Contains(string(d.Text), "\noracle:\n  list:\n") && c.name != "PayPal" {
				t.Errorf("no list oracle drafted:\n%s", d.Text)
			}
		})
	}
}

// Adyen Checkout: its own pspReference, never the merchantReference that
// echoes the marker; the header key (X-API-Key) over Basic; the
// example's placeholders named; no list and no GET of a payment, so a
// wire oracle, and the draft validates. Under --all, the captures act on the
// payment's pspReference in the payment's currency, and the POSTs that
// are queries are left out.
func TestAdyenCheckout(t *testing.T) {
	doc := public(t, checkoutDoc)
	t.Run("the default: POST /payments", func(t *testing.T) {
		t.Setenv("API_KEY", "a-key-long-enough-to-redact")
		d := draft(t, doc, openapi.Options{BaseURL: "http://127.0.0.1:9"}, []string{
			"  X-API-Key: ${API_KEY}",
			"  # TODO: create.body: the document's examples fill in what is your account's: merchantAccount (\"YOUR_MERCHANT_ACCOUNT\"), " +
				"paymentMethod.applePayToken (\"VNRWtuNlNEWkRCSm1xWndjMDFFbktkQU...\"), returnUrl (\"https://your-company.example.com/...\"); put your own values",
			"  id_field: pspReference",
			"  required: false",
			"# TODO: oracle: the document has no GET on this path to list what the create made, nor a GET of one: the wire oracle counts the ids of the create answers your API gave on idemspec's lanes (dropped ones included), which cannot see an execution whose answer was never written (S5b is skipped with it); count with a list, sql or command oracle if you can",
			"oracle:",
			"  wire: {}",
		}, "")
		if strings.Contains(string(d.Text), "merchantReference\n") {
			t.Errorf("id_field is the echoed reference:\n%s", d.Text)
		}
	})
	t.Run("--all", func(t *testing.T) {
		d, err := doc.Draft(openapi.Options{All: true, BaseURL: "http://127.0.0.1:9"})
		if err != nil {
			t.Fatal(err)
		}
		text := string(d.Text)
		for _, want := range []string{
			"# Left out, as it creates nothing to count: post-paymentMethods (POST /paymentMethods: its answer names no id).",
			"# Left out, as it creates nothing to count: post-cardDetails (POST /cardDetails: its answer names no id).",
			"      path: /payments/{{.Setup.payment.pspReference}}/captures",
			`      body: '{"amount":{"currency":"USD","value":{{.Variant}}},"merchantAccount":"YOUR_MERCHANT_ACCOUNT","reference":"{{.Marker}}"}'`,
		} {
			if !strings.Contains(text, "\n"+want+"\n") {
				t.Errorf("no line %q", want)
			}
		}
		for _, p := range d.Plans {
			if p.Path == "/paymentMethods" || p.Path == "/cardDetails" {
				t.Errorf("--all drafted %s", p.Path)
			}
		}
	})
}

// Lithic's card takes its variant in spend_limit, an amount in cents,
// never in replacement_comment, which means something only for a
// replacement card.
func TestLithicVariant(t *testing.T) {
	t.Setenv("API_KEY", "a-key-long-enough-to-redact")
	d := publicDraft(t, public(t, lithicDoc), openapi.Options{}, 2)
	if !strings.Contains(string(d.Text), `"spend_limit":{{.Variant}}00`) || strings.Contains(string(d.Text), "replacement_comment") {
		t.Errorf("the variant is not in spend_limit:\n%s", d.Text)
	}
}
