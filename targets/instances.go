package targets

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// Upstreams are the host:port of every instance, the base URL's first.
// Each gets its own pair of lanes; bursts are spread across them.
func (t *Target) Upstreams() []string {
	out := []string{t.Upstream()}
	for _, u := range t.Instances {
		out = append(out, hostPort(u))
	}
	return out
}

func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	port := "80"
	if u.Scheme == "https" {
		port = "443"
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// instances reads the further instances of a target file: the same
// service (same scheme, same paths, one shared store) at other addresses.
func (d *document) instances(raw []string, t *Target, expand expander) error {
	for i, r := range raw {
		field := fmt.Sprintf("instances.%d", i)
		v, err := expand(field, r)
		if err != nil {
			return err
		}
		u, err := url.Parse(v)
		if err != nil || u.Scheme != t.BaseURL.Scheme || u.Host == "" {
			return d.errorf("instances", "instance %d: %q is not a %s:// URL like base_url", i+1, t.Redact(v), t.BaseURL.Scheme)
		}
		if err := checkPort(u); err != nil {
			return d.errorf("instances", "instance %d: %v", i+1, err)
		}
		if strings.Trim(u.Path, "/") != strings.Trim(t.BaseURL.Path, "/") || u.RawQuery != "" || u.Fragment != "" {
			return d.errorf("instances", "instance %d: %q has another path or a query: an instance is another address of the same service, its paths are base_url's", i+1, t.Redact(v))
		}
		d.secrets(t, "instances", userinfoSecrets(u)...)
		t.Instances = append(t.Instances, u)
	}
	return nil
}
