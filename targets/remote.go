package targets

import (
	"fmt"
	"net"
	"strings"
)

// Loopback reports whether the target's base URL names this machine
// (localhost or a loopback address). Only a name or address in the URL
// counts: a host name that happens to resolve to 127.0.0.1 is treated as
// remote, since what it resolves to can change under a running suite.
func (t *Target) Loopback() bool {
	host := strings.TrimSuffix(strings.ToLower(t.BaseURL.Hostname()), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// CheckRemote refuses a target on another machine unless its file says
// allow_remote: true or the caller allows it (the --allow-remote flag):
// the suite sends bursts and faults, and must not reach a shared
// environment by a typo.
func (t *Target) CheckRemote(allowed bool) error {
	if t.Loopback() || t.AllowRemote || allowed {
		return nil
	}
	return fmt.Errorf("refusing to test %s: %s is not a loopback address, and idemspec sends bursts of duplicate requests and injects faults. "+
		"If this environment is meant for it, say so with allow_remote: true in %s or with --allow-remote, and consider --budget, --rate and --concurrency",
		t.Redact(t.BaseURL.Redacted()), t.BaseURL.Hostname(), t.Source)
}
