package targets

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/http/httpguts"
)

// The parts of a target file that say where the API is and how to call
// it: base_url, create and headers.

// baseURL reads base_url: an http:// or https:// URL whose path, if it
// has one, prefixes every path of the file. A query or a fragment would
// be dropped or misplaced when paths are joined onto it, so they are
// refused rather than silently lost.
func (d *document) baseURL(raw string, t *Target) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, d.errorf("base_url", "%q is not an http:// or https:// URL", t.Redact(raw))
	}
	if err := checkPort(u); err != nil {
		return nil, d.errorf("base_url", "%v", err)
	}
	if u.RawQuery != "" || u.ForceQuery {
		return nil, d.errorf("base_url", "a query (?%s) is not supported: put it in create.path and the oracle's paths, which are joined onto base_url", t.Redact(u.RawQuery))
	}
	if u.Fragment != "" {
		return nil, d.errorf("base_url", "a fragment (#%s) means nothing to an API: remove it", u.Fragment)
	}
	d.secrets(t, "base_url", userinfoSecrets(u)...)
	return u, nil
}

// checkPort refuses a port outside 1-65535.
func checkPort(u *url.URL) error {
	p := u.Port()
	if p == "" {
		return nil
	}
	if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("port %s is out of range (1-65535)", p)
	}
	return nil
}

// create reads the create: section. Its path takes no template fields;
// its body must hold {{.Marker}} (the oracle counts by it) and depend on
// {{.Variant}} (S3 and the fingerprint checks send two payloads that
// differ by it alone).
func (d *document) create(s createSpec, t *Target) (Create, error) {
	c := Create{
		Method:      strings.ToUpper(or(s.Method, http.MethodPost)),
		ContentType: or(s.ContentType, "application/json"),
		IDField:     s.IDField,
	}
	// Method, content type, path and body are judged each on its own.
	if !ValidHeaderName(c.Method) {
		d.keep(d.errorf("create.method", "%q is not an HTTP method", s.Method))
	}
	if err := checkHeader("Content-Type", c.ContentType); err != nil {
		d.keep(d.errorf("create.content_type", "%v", err))
	}
	var err error
	c.Path, c.PathTemplate, err = d.createPath(s.Path, t)
	d.keep(err)
	fields := "{{.Marker}}, {{.Variant}}, and {{.Key}} with key.in: body"
	if len(t.Setup) > 0 {
		fields += ", {{.Setup.NAME.FIELD}}"
	}
	if c.setupProbe, err = d.probeSetup("create.body", s.Body, t.Setup); err != nil {
		return c, err
	}
	var one, two string
	if c.Body, one, err = d.renderTemplate("create.body", s.Body, bodyEscaping(c.ContentType), bodyData{Payload{Marker: probeMarker, Variant: "1"}, keySlot, c.setupProbe}, fields); err != nil {
		return c, err
	}
	// Render rather than search the text, so {{ .Marker }} counts and a
	// literal "{{.Marker}}" in the output does not.
	if !strings.Contains(one, probeMarker) {
		return c, d.errorf("create.body", "must contain {{.Marker}}: the oracle counts this run's resources by it")
	}
	if b, err := render(c.Body, bodyData{Payload{Marker: probeMarker, Variant: "2"}, keySlot, c.setupProbe}); err == nil {
		two = b
	}
	if one == two {
		return c, d.errorf("create.body", "must depend on {{.Variant}}: S3 sends the same key with a second payload that differs by it alone, and the same bytes twice would be judged a mismatch not rejected")
	}
	return c, nil
}

// headers reads a map of header names to values (headers:, and the
// headers of tenants and the restart hook): names must be tokens and
// values must not hold CR, LF or NUL, or the request could not be sent
// (or would carry a header the file did not mean). Values of credential
// headers are secrets.
func (d *document) headers(field string, m stringMap, t *Target, expand expander) (http.Header, error) {
	h := make(http.Header, len(m))
	for _, e := range m {
		name, v := e.Key, e.Value
		// Each header is judged on its own: every unset variable is named.
		val, err := expand(field+"."+name, v)
		if !d.keep(err) {
			continue
		}
		val = basicCredentials(name, val)
		if err := checkHeader(name, val); err != nil {
			d.keep(d.errorf(field+"."+name, "%v", t.Redact(err.Error())))
			continue
		}
		h.Add(name, val)
		if SecretHeader(name) {
			d.secrets(t, field+"."+name, headerSecrets(val)...)
		}
	}
	return h, nil
}

// basicCredentials encodes an Authorization header's Basic credentials
// written as user:password ('Basic ${API_BASIC_CREDENTIALS}' holding
// ws_user@Company:secret), as RFC 7617 sends them; credentials already
// in base64 hold no colon (it is not in its alphabet) and are kept.
func basicCredentials(name, value string) string {
	scheme, creds, ok := strings.Cut(value, " ")
	if !ok || !strings.EqualFold(name, "Authorization") || !strings.EqualFold(scheme, "Basic") || !strings.Contains(creds, ":") {
		return value
	}
	return scheme + " " + base64.StdEncoding.EncodeToString([]byte(creds))
}

// checkHeader says why a header cannot be sent as written.
func checkHeader(name, value string) error {
	if !ValidHeaderName(name) {
		return fmt.Errorf("%q is not a header name (a token: no colon, space or separator)", name)
	}
	if !httpguts.ValidHeaderFieldValue(value) {
		return fmt.Errorf("the value of %s holds a control character (CR, LF or NUL): it cannot be sent as one header", name)
	}
	return nil
}

// NewDirectClient is the client of the oracle, look-ups and cleanup: it
// never follows a redirect, and dials only the addresses the target
// names (see dial).
func (t *Target) NewDirectClient() *http.Client {
	return &http.Client{
		Timeout:   10 * time.Second,
		Transport: t.transport(true),
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// IdleReuse bounds how long idemspec's clients keep an idle connection
// to a target for its next request. Servers close idle keep-alive
// connections, and fast (Python's http.server handler timeout is often
// 1 s, gunicorn's keepalive 2 s, uvicorn's and Node's 5 s): a request
// written to one the server has just closed gets an EOF or a reset that
// says nothing of the server. Well under the shortest of them, a
// connection is reused only while the server still keeps it.
const IdleReuse = 250 * time.Millisecond

// transport is an HTTP transport to the target: its TLS settings, no
// proxy from the environment, and dial's pinned addresses. Health checks
// keep no connection (one left from before a restart would only fail).
func (t *Target) transport(keepAlive bool) *http.Transport {
	tr := &http.Transport{Proxy: nil, DialContext: t.dial, DisableKeepAlives: !keepAlive, ForceAttemptHTTP2: false, IdleConnTimeout: IdleReuse}
	if t.TLS != nil {
		tr.TLSClientConfig = t.TLS.Clone()
	}
	return tr
}
