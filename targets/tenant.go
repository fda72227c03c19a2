package targets

import (
	"context"
	"fmt"
	"net/http"
)

// Tenant is one credential the target accepts. With two or more, T1
// checks that a key reused by a second tenant never reaches the first
// tenant's resource.
type Tenant struct {
	Name    string
	Headers http.Header // set over the target's headers
}

type tenantSpec struct {
	Name    string    `yaml:"name" required:"true"`
	Headers stringMap `yaml:"headers" required:"true"`
}

type tenantKey struct{}

// AsTenant makes every request sent with ctx (creates, oracle reads,
// look-ups) carry tenant's headers instead of the target's defaults.
func AsTenant(ctx context.Context, t Tenant) context.Context {
	return context.WithValue(ctx, tenantKey{}, t)
}

func (d *document) tenants(specs []tenantSpec, t *Target, expand expander) error {
	if len(specs) == 0 {
		return nil
	}
	if len(specs) < 2 {
		return d.errorf("tenants", "give two or more tenants (T1 compares a second tenant with the first), or none")
	}
	for i, s := range specs {
		if s.Name == "" || len(s.Headers) == 0 {
			return d.errorf("tenants", "tenant %d needs a name and headers (its credentials)", i+1)
		}
		h, err := d.headers(fmt.Sprintf("tenants[%d].headers", i), s.Headers, t, expand)
		if !d.keep(err) {
			continue // the next tenant is judged still
		}
		tn := Tenant{Name: s.Name, Headers: h}
		t.Tenants = append(t.Tenants, tn)
	}
	return nil
}
