package targets

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// Where idemspec connects. A target file names addresses in a few
// fields only (base_url, instances, an absolute restart.http.url, a
// postgres oracle.sql.dsn); every other URL-ish field is a path on
// base_url, checked at load (checkPath) and joined onto base_url's
// scheme, host and path when sent (resolve), so no value a target
// answers with can move a request to another host.
//
// Before anything is sent, CheckRemote applies the loopback rule to
// every one of those addresses. Every connection idemspec opens to the
// target (proxy upstreams, oracle, look-ups, cleanup, health checks,
// restart hook, SQL oracle) goes through Target.dial, which dials only
// those addresses, resolved once and pinned: localhost names never reach
// DNS, and another name is looked up once per run.

// contact is an address a target file names, with the field it came from.
type contact struct {
	field string
	host  string // lower case, without a trailing dot
	port  string
}

// contacts lists every address the target's connections may go to.
func (t *Target) contacts() []contact {
	out := []contact{contactOf("base_url", t.BaseURL)}
	for i, u := range t.Instances {
		out = append(out, contactOf(fmt.Sprintf("instances[%d]", i), u))
	}
	if h, ok := t.Lifecycle.(*RestartHook); ok && h.HTTP != nil && h.HTTP.absolute != nil {
		out = append(out, contactOf("restart.http.url", h.HTTP.absolute))
	}
	if o, ok := t.Oracle.(*SQLOracle); ok {
		for _, hp := range o.hosts {
			out = append(out, contact{field: "oracle.sql.dsn", host: canonicalHost(hp.host), port: hp.port})
		}
	}
	return out
}

func contactOf(field string, u *url.URL) contact {
	_, port, _ := net.SplitHostPort(hostPort(u))
	return contact{field: field, host: canonicalHost(u.Hostname()), port: port}
}

func canonicalHost(h string) string {
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

// loopbackAddrs decides a host without DNS: a localhost name (RFC 6761:
// localhost, *.localhost, with or without the final dot) is 127.0.0.1
// then ::1, and a loopback address is itself. ok is false for any other
// host, including a name that happens to resolve to 127.0.0.1: what it
// resolves to can change under a running suite.
func loopbackAddrs(host string) (addrs []netip.Addr, ok bool) {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.IPv6Loopback()}, true
	}
	a, err := netip.ParseAddr(host)
	if err == nil && a.Unmap().IsLoopback() {
		return []netip.Addr{a.Unmap()}, true
	}
	return nil, false
}

// Loopback reports whether every address the target names is on this
// machine.
func (t *Target) Loopback() bool {
	for _, c := range t.contacts() {
		if _, ok := loopbackAddrs(c.host); !ok {
			return false
		}
	}
	return true
}

// CheckRemote refuses a target that names an address on another machine
// (in any field) unless its file says allow_remote: true or the caller
// allows it (the --allow-remote flag): the suite sends bursts and
// faults, and must not reach a shared environment by a typo. It is also
// what lets Target.dial reach such an address at all.
func (t *Target) CheckRemote(allowed bool) error {
	t.pins.mu.Lock()
	t.pins.remoteAllowed = t.pins.remoteAllowed || allowed
	t.pins.mu.Unlock()
	if t.AllowRemote || allowed {
		return nil
	}
	for _, c := range t.contacts() {
		if _, ok := loopbackAddrs(c.host); !ok {
			return fmt.Errorf("refusing to test %s: %s: %s is not a loopback address, and idemspec sends bursts of duplicate requests and injects faults. "+
				"If this environment is meant for it, say so with allow_remote: true in %s or with --allow-remote, and consider --budget, --rate and --concurrency",
				t.Redact(t.BaseURL.Redacted()), c.field, c.host, t.Source)
		}
	}
	return nil
}

// pins are the addresses each host was resolved to, once per run.
type pins struct {
	mu            sync.Mutex
	remoteAllowed bool
	addrs         map[string][]netip.Addr
}

// lookupNetIP resolves a name that is not a localhost name (tests
// replace it).
var lookupNetIP = net.DefaultResolver.LookupNetIP

// errNotNamed is dial's answer for an address the target file does not name.
var errNotNamed = errors.New("not an address the target file names (base_url, instances, restart.http.url, oracle.sql.dsn)")

// addrsOf is the pinned addresses of a host the target names.
func (t *Target) addrsOf(ctx context.Context, host string) ([]netip.Addr, error) {
	if addrs, ok := loopbackAddrs(host); ok {
		return addrs, nil
	}
	t.pins.mu.Lock()
	defer t.pins.mu.Unlock()
	if !t.AllowRemote && !t.pins.remoteAllowed {
		return nil, fmt.Errorf("%s is not a loopback address and remote targets are not allowed (allow_remote: true or --allow-remote)", host)
	}
	if addrs, ok := t.pins.addrs[host]; ok {
		return addrs, nil
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a.Unmap()}
	} else {
		found, err := lookupNetIP(ctx, "ip", host)
		if err != nil {
			return nil, err
		}
		for _, a := range found {
			addrs = append(addrs, a.Unmap())
		}
	}
	if t.pins.addrs == nil {
		t.pins.addrs = map[string][]netip.Addr{}
	}
	t.pins.addrs[host] = addrs
	return addrs, nil
}

// dial opens a TCP connection to host:port, which must be an address
// the target names, to the address it was pinned to (the first of them
// that accepts). It is the DialContext of every client idemspec uses
// to reach the target outside the proxy lanes.
func (t *Target) dial(ctx context.Context, _, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	host = canonicalHost(host)
	named := false
	for _, c := range t.contacts() {
		named = named || (c.host == host && c.port == port)
	}
	if !named {
		return nil, fmt.Errorf("dial %s: %w", addr, errNotNamed)
	}
	addrs, err := t.addrsOf(ctx, host)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	var d net.Dialer
	var errs []error
	for _, a := range addrs {
		c, err := d.DialContext(ctx, "tcp", netip.AddrPortFrom(a, portNumber(port)).String())
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

// Pinned are the addresses the proxy lanes connect to, one per instance
// (the base URL's first): each host resolved once, the first of its
// addresses that accepts a connection when there is a choice.
func (t *Target) Pinned(ctx context.Context) ([]string, error) {
	var out []string
	for _, hp := range t.Upstreams() {
		host, port, _ := net.SplitHostPort(hp)
		addrs, err := t.addrsOf(ctx, canonicalHost(host))
		if err != nil {
			return nil, err
		}
		pick := netip.AddrPortFrom(addrs[0], portNumber(port)).String()
		if len(addrs) > 1 {
			if c, err := t.dial(ctx, "tcp", hp); err == nil {
				pick = c.RemoteAddr().String()
				c.Close()
			}
		}
		out = append(out, pick)
	}
	return out, nil
}

func portNumber(p string) uint16 {
	var n uint16
	fmt.Sscan(p, &n)
	return n
}

// checkPath says why p (a rendered path field) is not a path on
// base_url, or returns nil.
func checkPath(p string) error {
	switch {
	case strings.HasPrefix(p, "//"):
		return fmt.Errorf("%q names a host (//host/...): give a path on base_url", p)
	case urlScheme.MatchString(p):
		return fmt.Errorf("%q is a URL: give a path on base_url (idemspec contacts only the addresses base_url and instances name)", p)
	case strings.ContainsAny(p, "\r\n\t "):
		return fmt.Errorf("%q holds white space: escape it (%%20)", p)
	case pathParameter.MatchString(p):
		return fmt.Errorf("%q holds the path parameter %s: put the value of a resource that exists in its place", p, pathParameter.FindString(p))
	}
	if _, err := url.Parse(p); err != nil {
		return fmt.Errorf("%q is not a path: %v", p, errors.Unwrap(err))
	}
	return checkSegments(p)
}

// checkSegments refuses a path with a dot segment (. or .., written or
// percent-encoded): a server resolves it, and the request would leave
// base_url's path or name another resource than the one the file says.
// A value from an answer is escaped as one segment (a / in it is %2F),
// so this is the one way left for it to move a path.
func checkSegments(p string) error {
	rel, _, _ := strings.Cut(p, "?")
	rel, _, _ = strings.Cut(rel, "#")
	for _, seg := range strings.Split(rel, "/") {
		switch strings.ToLower(seg) {
		case ".", "..", "%2e", "%2e%2e", ".%2e", "%2e.":
			return fmt.Errorf("%q has the segment %q: refused, it would leave base_url's path or name another resource", p, seg)
		}
	}
	return nil
}

// pathURL is resolve for a rendered path (one that holds values the
// target answered), refusing one that would leave base_url's path.
func (t *Target) pathURL(p string) (string, error) {
	if err := checkSegments(p); err != nil {
		return "", err
	}
	return t.resolve(p), nil
}

var urlScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// resolve joins a path onto base_url: its scheme and host always, and
// its path as a prefix (base_url http://h/api with path /r sends to
// http://h/api/r). The joined path starts with a single slash, so
// nothing in p can name another host.
func (t *Target) resolve(p string) string {
	u := *t.BaseURL
	u.Fragment, u.RawFragment = "", ""
	rel, query, _ := strings.Cut(p, "?")
	rel, _, _ = strings.Cut(rel, "#")
	query, _, _ = strings.Cut(query, "#")
	joined := strings.TrimSuffix(t.BaseURL.EscapedPath(), "/") + "/" + strings.TrimLeft(rel, "/")
	if pu, err := url.Parse(joined); err == nil {
		u.Path, u.RawPath = pu.Path, pu.RawPath
	} else {
		u.Path, u.RawPath = joined, ""
	}
	u.RawQuery = query
	return u.String()
}
