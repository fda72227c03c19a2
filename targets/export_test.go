package targets

import (
	"context"
	"net/netip"
)

// SetLookup replaces the resolver dial uses for names that are not
// localhost names, until the returned function restores it.
func SetLookup(f func(ctx context.Context, network, host string) ([]netip.Addr, error)) (restore func()) {
	old := lookupNetIP
	lookupNetIP = f
	return func() { lookupNetIP = old }
}
