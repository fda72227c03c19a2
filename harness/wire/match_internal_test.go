package wire

import "testing"

func TestOperationMatchesItsMethodAndPathTemplate(t *testing.T) {
	pay := Operation{Kind: Create, Path: "/orders/{{.Setup.order.id}}/pay?expand=all"}
	get := Operation{Kind: Lookup, Method: "GET", Path: "/orders/{id}"}
	for _, c := range []struct {
		op           Operation
		method, path string
		want         bool
	}{
		{pay, "POST", "/orders/o_1/pay", true},
		{pay, "post", "/orders/o_1/pay/", true},
		{pay, "PUT", "/orders/o_1/pay", false},
		{pay, "POST", "/orders//pay", false},
		{pay, "POST", "/orders/o_1/refund", false},
		{get, "GET", "/orders/o_1", true},
		{get, "GET", "/orders/o_1/pay", false},
	} {
		if got := c.op.matches(c.method, c.path); got != c.want {
			t.Errorf("%s matches %s %s = %v, want %v", c.op.Path, c.method, c.path, got, c.want)
		}
	}
	if op, ok := match([]Operation{get, {Name: "new", Kind: Create, Method: "GET", Path: "/orders/new"}}, "GET", "/orders/new"); !ok || op.Name != "new" {
		t.Errorf("a create is matched before a wider look-up: %+v %v", op, ok)
	}
}

// An API served under a base path: the operations' templates are below
// it, and a path outside it matches nothing, even one a template would.
func TestMatchUnderABasePath(t *testing.T) {
	ops := []Operation{{Name: "charge", Kind: Create, Path: "/charges"}}
	for _, c := range []struct {
		base, path string
		want       bool
	}{
		{"/v1", "/v1/charges", true},
		{"/v1", "/charges", false},
		{"/v1", "/v10/charges", false},
		{"/v1", "/v2/v1/charges", false},
		{"", "/charges", true},
		// As a server routes them: dot segments resolved, repeated
		// slashes one.
		{"/v1", "/v1/x/../charges", true},
		{"/v1", "/v1/./charges", true},
		{"/v1", "//v1//charges", true},
		{"/v1", "/v1/charges/.", true},
		{"/v1", "/v2/../v1/charges", true},
		{"/v1", "/v1/../charges", false},
		{"", "/x/../charges", true},
		{"", "/../charges", true},
		{"", "/charges/x/..", true},
		{"", "/charges/..", false},
	} {
		if _, ok := matchUnder(ops, c.base, "POST", c.path); ok != c.want {
			t.Errorf("under %q, POST %s matched = %v, want %v", c.base, c.path, ok, c.want)
		}
	}
}
