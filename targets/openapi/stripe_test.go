package openapi_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemspec/idemspec/targets/openapi"
)

// testdata/stripe-spec3.json.gz is Stripe's published OpenAPI document
// (github.com/stripe/openapi, openapi/spec3.json of 2022-04-12, MIT:
// testdata/stripe-LICENSE), gzipped from 4.2 MB.
var stripe = sync.OnceValues(func() (*openapi.Document, error) { return gunzipped("stripe-spec3.json") })

func stripeDocument(t *testing.T) *openapi.Document {
	t.Helper()
	start := time.Now()
	doc, err := stripe()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Stripe's document loaded in %v", time.Since(start))
	return doc
}

// Stripe takes Idempotency-Key on every POST and declares it on none:
// init finds no keyed POST unless told the header.
func TestStripeDeclaresNoKey(t *testing.T) {
	_, err := stripeDocument(t).Draft(openapi.Options{})
	if err == nil || !strings.Contains(err.Error(), "--key-header") {
		t.Errorf("%v, want an error pointing at --key-header", err)
	}
}

func TestStripeCustomers(t *testing.T) {
	doc := stripeDocument(t)
	d := draft(t, doc, openapi.Options{Operations: []string{"PostCustomers"}, KeyHeader: "Idempotency-Key", BaseURL: "http://127.0.0.1:12111"}, []string{
		"  path: /v1/customers",
		"  content_type: application/x-www-form-urlencoded",
		// The marker in description, free text Stripe gives back (the list
		// filters by email, which Stripe checks is an address); the
		// variant in balance.
		"  body: balance={{.Variant}}&description={{.Marker}}",
		"  id_field: id",
		"  name: Idempotency-Key",
		"    path: /v1/customers",
		"    items: data",
		"    marker_field: description",
		"      next: cursor",
		"      field: data[-1].id",
		"      param: starting_after",
		"      more: has_more",
		"  Authorization: 'Bearer ${API_TOKEN}'",
	}, "API_TOKEN")
	if len(d.TODOs) != 2 || !strings.HasPrefix(d.TODOs[0], "headers: ") || !strings.HasPrefix(d.TODOs[1], "oracle.list.path: the list cannot be searched by description") {
		t.Errorf("TODOs %q, want the token's and the unfiltered list's", d.TODOs)
	}
	t.Setenv("API_TOKEN", "sk_test_a-token-long-enough-to-redact")
	draft(t, doc, openapi.Options{Operations: []string{"PostCustomers"}, KeyHeader: "Idempotency-Key", BaseURL: "http://127.0.0.1:12111"}, nil, "")
}

func TestStripePaymentIntents(t *testing.T) {
	t.Setenv("API_TOKEN", "sk_test_a-token-long-enough-to-redact")
	d := draft(t, stripeDocument(t), openapi.Options{Operations: []string{"PostPaymentIntents"}, KeyHeader: "Idempotency-Key"}, []string{
		"base_url: https://api.stripe.com",
		// amount and currency are required; the list filters by none of
		// the body's strings, so it is read whole and the marker picked out.
		"  body: amount={{.Variant}}00&currency=usd&description={{.Marker}}", // in cents: Stripe takes no less than 50
		"    path: /v1/payment_intents",
		"    marker_field: description",
	}, "")
	if todos := strings.Join(d.TODOs, "\n"); !strings.Contains(todos, "oracle.list.path: the list cannot be searched by description") || !strings.Contains(todos, "base_url: https://api.stripe.com is not this machine") {
		t.Errorf("TODOs %q, want the unfiltered list's and the remote base_url's", d.TODOs)
	}
}

// Stripe's action on a customer: POST /v1/customers makes the parent,
// with a form body and no key, since that POST declares none (a setup
// sends only the key its POST declares, whatever --key-header says).
func TestStripeActionOnACustomer(t *testing.T) {
	t.Setenv("API_TOKEN", "sk_test_a-token-long-enough-to-redact")
	d := draft(t, stripeDocument(t), openapi.Options{Operations: []string{"PostCustomersCustomerSources"}, KeyHeader: "Idempotency-Key", BaseURL: "http://127.0.0.1:12111"}, []string{
		"  - name: customer",
		"    path: /v1/customers",
		"    content_type: application/x-www-form-urlencoded",
		"    body: description={{.Marker}}",
		"  path: /v1/customers/{{.Setup.customer.id}}/sources",
		"    path: /v1/customers/{{.Setup.customer.id}}/sources",
	}, "create.body: must depend on {{.Variant}}")
	if strings.Contains(string(d.Text), "    headers:\n") || strings.Contains(strings.Join(d.TODOs, "\n"), "create.path") {
		t.Errorf("a setup key or a path TODO in:\n%s", d.Text)
	}
}

// Stripe's main create, its refund and its capture, each request
// validated against Stripe's document.
func TestStripeDrafts(t *testing.T) {
	doc := stripeDocument(t)
	t.Run("the default: PostPaymentIntents", func(t *testing.T) {
		publicDraft(t, doc, openapi.Options{KeyHeader: "Idempotency-Key"}, 2,
			"name: PostPaymentIntents",
			"profile: stripe",
			"# Next candidates (init --operation ID): PostOrders (POST /v1/orders), PostCharges (POST /v1/charges), PostRefunds (POST /v1/refunds).",
			"  body: amount={{.Variant}}00&currency=usd&description={{.Marker}}",
			"    marker_field: description",
		)
	})
	t.Run("PostRefunds: a confirmed PaymentIntent made by setup, the marker in metadata", func(t *testing.T) {
		publicDraft(t, doc, openapi.Options{Operations: []string{"PostRefunds"}, KeyHeader: "Idempotency-Key"}, 2,
			"  - name: payment_intent",
			"    body: amount=100000&confirm=true&currency=usd&description={{.Marker}}&payment_method=pm_card_visa",
			// Never currency={{.Marker}}: the marker in metadata, which Stripe gives back.
			"  body: amount={{.Variant}}&metadata%5Bidemspec_marker%5D={{.Marker}}&payment_intent={{.Setup.payment_intent.id}}",
			"    marker_field: metadata.idemspec_marker",
		)
	})
	t.Run("PostPaymentIntentsIntentCapture: the setup makes a PaymentIntent to capture", func(t *testing.T) {
		d, err := doc.Draft(openapi.Options{Operations: []string{"PostPaymentIntentsIntentCapture"}, KeyHeader: "Idempotency-Key", BaseURL: "http://127.0.0.1:9"})
		if err != nil {
			t.Fatal(err)
		}
		if want := "\n    body: amount=100000&capture_method=manual&confirm=true&currency=usd&description={{.Marker}}&payment_method=pm_card_visa\n"; !strings.Contains(string(d.Text), want) {
			t.Errorf("no %q in:\n%s", want, d.Text)
		}
		for _, r := range requests(t, d.Text) {
			if err := validate(doc.Spec(), r); err != nil {
				t.Errorf("%s %s does not validate against the document: %v\nbody: %s", r.method, r.path, err, r.body)
			}
		}
	})
}
