package openapi_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"text/template"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"go.yaml.in/yaml/v3"

	"github.com/idemspec/idemspec/targets/openapi"
)

// The published documents of three payment APIs, gzipped as fetched
// (docs/OPENAPI.md says from where and when; each beside its licence):
//   - stripe-spec3.json.gz: github.com/stripe/openapi, openapi/spec3.json
//     of 2022-04-12 (MIT, stripe-LICENSE);
//   - square-api.json.gz: github.com/square/connect-api-specification,
//     api.json at 5733f66 (2025-08-19, Apache-2.0, square-LICENSE);
//   - paypal-checkout_orders_v2.json.gz and
//     paypal-payments_payment_v2.json.gz:
//     github.com/paypal/paypal-rest-api-specifications, openapi/ at
//     ec4d8f3 (2024-02-03, Apache-2.0, paypal-LICENSE).
var (
	squareDoc = sync.OnceValues(func() (*openapi.Document, error) { return gunzipped("square-api.json") })
	ordersDoc = sync.OnceValues(func() (*openapi.Document, error) { return gunzipped("paypal-checkout_orders_v2.json") })
	paymtsDoc = sync.OnceValues(func() (*openapi.Document, error) { return gunzipped("paypal-payments_payment_v2.json") })
)

func gunzipped(name string) (*openapi.Document, error) {
	f, err := os.Open("testdata/" + name + ".gz")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if _, err := io.Copy(&b, z); err != nil {
		return nil, err
	}
	return openapi.Load(name, b.Bytes())
}

func public(t *testing.T, doc func() (*openapi.Document, error)) *openapi.Document {
	t.Helper()
	d, err := doc()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// publicDraft drafts an operation of a public document, checks that
// the file validates with at most maxTODOs TODOs and holds want's
// lines, and that every request it would send (setup, create, the
// oracle's list) validates against the document's own schemas.
func publicDraft(t *testing.T, doc *openapi.Document, o openapi.Options, maxTODOs int, want ...string) openapi.Draft {
	t.Helper()
	t.Setenv("API_TOKEN", "a-token-long-enough-to-redact")
	o.BaseURL = "http://127.0.0.1:9"
	d := draft(t, doc, o, want, "")
	if len(d.TODOs) > maxTODOs {
		t.Errorf("%d TODOs, want at most %d: %q", len(d.TODOs), maxTODOs, d.TODOs)
	}
	for _, r := range requests(t, d.Text) {
		if err := validate(doc.Spec(), r); err != nil {
			t.Errorf("%s %s does not validate against the document: %v\nbody: %s", r.method, r.path, err, r.body)
		}
	}
	return d
}

// drafted is a request a draft would send, rendered.
type drafted struct {
	method, path, body, contentType string
	headers                         map[string]string
}

// requests renders a draft's setup requests, its create and its
// oracle's list or lookup as a run would send them, with made-up values for the
// marker, the variant, the key and the ids setup gets back.
func requests(t *testing.T, text []byte) []drafted {
	t.Helper()
	var f struct {
		Setup []struct {
			Name, Method, Path, Body string
			ContentType              string `yaml:"content_type"`
			Headers                  map[string]string
		}
		Create struct {
			Method, Path, Body string
			ContentType        string `yaml:"content_type"`
		}
		Key    struct{ In, Name string }
		Oracle struct {
			List   *struct{ Path string }
			Lookup *struct{ Path string }
		}
	}
	if err := yaml.Unmarshal(text, &f); err != nil {
		t.Fatal(err)
	}
	setup := map[string]any{}
	data := map[string]any{"Marker": "idemspec-0123abcd-S1-1", "Variant": "100", "Key": "3fa85f64-5717-4562-b3fc-2c963f66afa6", "Setup": setup, "ID": "5O190127TN364715T",
		"Since": "2026-01-01T10:00:00Z", "Until": "2026-01-03T10:00:00Z"}
	ids := regexp.MustCompile(`\{\{\.Setup\.([A-Za-z0-9_]+)\.([A-Za-z0-9_.]+)\}\}`)
	for _, m := range ids.FindAllStringSubmatch(string(text), -1) {
		at := setup
		fields := strings.Split(m[2], ".")
		if _, ok := at[m[1]]; !ok {
			at[m[1]] = map[string]any{}
		}
		at = at[m[1]].(map[string]any)
		for _, field := range fields[:len(fields)-1] {
			if _, ok := at[field]; !ok {
				at[field] = map[string]any{}
			}
			at = at[field].(map[string]any)
		}
		at[fields[len(fields)-1]] = "SETUPID" + m[1]
	}
	render := func(s string) string {
		tmpl, err := template.New("").Option("missingkey=error").Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := tmpl.Execute(&b, data); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	var out []drafted
	for _, s := range f.Setup {
		r := drafted{method: s.Method, path: render(s.Path), body: render(s.Body), contentType: s.ContentType, headers: map[string]string{}}
		for k, v := range s.Headers {
			r.headers[k] = render(v)
		}
		out = append(out, r)
	}
	create := drafted{method: f.Create.Method, path: render(f.Create.Path), body: render(f.Create.Body), contentType: f.Create.ContentType, headers: map[string]string{}}
	switch f.Key.In {
	case "header":
		create.headers[f.Key.Name] = data["Key"].(string)
	case "query":
		create.path += map[bool]string{true: "&", false: "?"}[strings.Contains(create.path, "?")] + f.Key.Name + "=" + data["Key"].(string)
	}
	out = append(out, create)
	if f.Oracle.List != nil {
		out = append(out, drafted{method: "GET", path: render(f.Oracle.List.Path), headers: map[string]string{}})
	}
	if f.Oracle.Lookup != nil {
		out = append(out, drafted{method: "GET", path: render(f.Oracle.Lookup.Path), headers: map[string]string{}})
	}
	return out
}

// validate checks a request against the document's operation at its
// method and path (credentials are not checked: the draft takes them
// from the environment).
func validate(spec *openapi3.T, r drafted) error {
	path, _, _ := strings.Cut(r.path, "?")
	for _, template := range slices.Sorted(maps.Keys(spec.Paths.Map())) {
		item := spec.Paths.Value(template)
		op := item.GetOperation(r.method)
		if op == nil {
			continue
		}
		names := regexp.MustCompile(`\{([^{}]+)\}`).FindAllStringSubmatch(template, -1)
		re := "^" + regexp.MustCompile(`\\\{[^{}]+\\\}`).ReplaceAllString(regexp.QuoteMeta(template), `([^/]+)`) + "$"
		m := regexp.MustCompile(re).FindStringSubmatch(path)
		if m == nil {
			continue
		}
		params := map[string]string{}
		for i, n := range names {
			params[n[1]] = m[i+1]
		}
		req, err := http.NewRequest(r.method, "http://127.0.0.1:9"+r.path, strings.NewReader(r.body))
		if err != nil {
			return err
		}
		if r.contentType != "" {
			req.Header.Set("Content-Type", r.contentType)
		}
		for k, v := range r.headers {
			req.Header.Set(k, v)
		}
		return openapi3filter.ValidateRequest(context.Background(), &openapi3filter.RequestValidationInput{
			Request: req, PathParams: params,
			Route:   &routers.Route{Spec: spec, Path: template, PathItem: item, Method: r.method, Operation: op},
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true},
		})
	}
	return fmt.Errorf("no operation %s %s in the document", r.method, path)
}

func TestSquare(t *testing.T) {
	doc := public(t, squareDoc)
	t.Run("the default: CreatePayment", func(t *testing.T) {
		d := publicDraft(t, doc, openapi.Options{}, 2,
			"name: CreatePayment",
			"# Next candidates (init --operation ID): RefundPayment (POST /v2/refunds), CreateInvoice (POST /v2/invoices), CreateBooking (POST /v2/bookings).",
			// The key in the body, the marker in note (free text Square
			// gives back), the variant in the amount in cents, Square's
			// sandbox nonce as the card; nothing the example made up.
			`  body: '{"amount_money":{"amount":{{.Variant}}00,"currency":"USD"},"idempotency_key":"{{.Key}}","note":"{{.Marker}}","source_id":"cnon:card-nonce-ok"}'`,
			"  id_field: payment.id",
			"  in: body",
			"  name: idempotency_key",
			"    path: /v2/payments",
			"    items: payments",
			"    marker_field: note",
		)
		if len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0], "#/components/schemas/CatalogModifierToggleOverrideType") {
			t.Errorf("warnings %q, want one naming the dangling $ref", d.Warnings)
		}
	})
	t.Run("RefundPayment: its payment made by setup", func(t *testing.T) {
		publicDraft(t, doc, openapi.Options{Operations: []string{"RefundPayment"}}, 2,
			"  # The body's payment_id is the id of a parent made for each marker by CreatePayment (POST /v2/payments): its answer's payment.id.",
			"  - name: payment",
			"    path: /v2/payments",
			`    body: '{"amount_money":{"amount":100000,"currency":"USD"},"idempotency_key":"{{.Key}}","note":"{{.Marker}}","source_id":"cnon:card-nonce-ok"}'`,
			// The marker in reason, never in payment_version_token.
			`  body: '{"amount_money":{"amount":{{.Variant}}00,"currency":"USD"},"idempotency_key":"{{.Key}}","payment_id":"{{.Setup.payment.payment.id}}","reason":"{{.Marker}}"}'`,
			"  id_field: refund.id",
			"    items: refunds",
		)
	})
	t.Run("an operation that reaches the dangling $ref", func(t *testing.T) {
		d, err := doc.Draft(openapi.Options{Operations: []string{"UpsertCatalogObject"}})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(d.TODOs, "\n"), "$ref #/components/schemas/CatalogModifierToggleOverrideType names nothing in it") {
			t.Errorf("no TODO naming the $ref in %q", d.TODOs)
		}
	})
	t.Run("--all leaves out tokens and searches", func(t *testing.T) {
		d, err := doc.Draft(openapi.Options{All: true})
		if err != nil {
			t.Fatal(err)
		}
		text := string(d.Text)
		for _, left := range []string{"# Left out, as it creates nothing to count: ObtainToken (POST /oauth2/token: oauth2).", "SearchOrders (POST /v2/orders/search: search)"} {
			if !strings.Contains(text, left) {
				t.Errorf("no %q in the file", left)
			}
		}
		for _, p := range d.Plans {
			if strings.Contains(strings.ToLower(p.ID), "search") || strings.Contains(strings.ToLower(p.ID), "token") {
				t.Errorf("--all drafted %s", p.ID)
			}
		}
	})
}

func TestPayPal(t *testing.T) {
	t.Run("Orders: the default, orders.create", func(t *testing.T) {
		publicDraft(t, public(t, ordersDoc), openapi.Options{}, 2,
			"name: orders.create",
			// The marker in purchase_units[0].custom_id, the variant in
			// the amount, a decimal string; the payer's redirect pages of
			// the example's payment_source left out.
			`  body: '{"intent":"CAPTURE","purchase_units":[{"amount":{"currency_code":"USD","value":"{{.Variant}}.00"},"custom_id":"{{.Marker}}","reference_id":"d9f80740-38f0-11e8-b467-0ed5f89f718b"}]}'`,
			"  id_field: id",
			"  in: header",
			"  name: PayPal-Request-Id",
		)
	})
	t.Run("Orders: a capture of an order that a payer must approve", func(t *testing.T) {
		d, err := public(t, ordersDoc).Draft(openapi.Options{Operations: []string{"orders.capture"}, BaseURL: "http://127.0.0.1:9"})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(d.Text), "\n  path: /v2/checkout/orders/{{.Setup.order.id}}/capture\n") ||
			!strings.Contains(strings.Join(d.TODOs, "\n"), "create.path: a capture acts on what orders.create makes, and its document does not say how to make one ready to capture") {
			t.Errorf("TODOs %q, want the order's approval named:\n%s", d.TODOs, d.Text)
		}
	})
}
