package openapi

import (
	"net/url"
	"strings"
)

// What a payment API's test mode takes where its document shows only
// a value of an account of its own: a card on file (ccof:...) that no
// other account has. Square's sandbox takes the nonce
// cnon:card-nonce-ok for a card that always succeeds, Stripe's test
// mode the payment method pm_card_visa. Keyed by the API's host.
var testValues = map[string]map[string]string{
	"squareup.com":        {"source_id": "cnon:card-nonce-ok"},
	"squareupsandbox.com": {"source_id": "cnon:card-nonce-ok"},
	"stripe.com":          {"payment_method": "pm_card_visa"},
}

// profiles are the status profiles (idemspec list) of the APIs that
// have one, by host.
var profiles = map[string]string{"stripe.com": "stripe"}

// profile is the document's API's profile, "" for none known.
func (d *Document) profile() string {
	u, err := url.Parse(d.baseURL())
	if err != nil {
		return ""
	}
	host := u.Hostname()
	for domain, p := range profiles {
		if host == domain || strings.HasSuffix(host, "."+domain) {
			return p
		}
	}
	return ""
}

// testValue is the test-mode value of a property in the document's API,
// if it has one.
func (d *Document) testValue(name string) (string, bool) {
	u, err := url.Parse(d.baseURL())
	if err != nil {
		return "", false
	}
	host := u.Hostname()
	for domain, values := range testValues {
		if host == domain || strings.HasSuffix(host, "."+domain) {
			v, ok := values[name]
			return v, ok
		}
	}
	return "", false
}

// useTestValues puts the API's test values in the body's fields that
// hold one.
func (d *Document) useTestValues(fields map[string]any) {
	for name := range fields {
		if v, ok := d.testValue(name); ok {
			fields[name] = v
		}
	}
}
