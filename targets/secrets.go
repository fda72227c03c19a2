package targets

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"
)

// Secrets come from two places: every ${ENV} expansion in a target file,
// and the value of every header whose name says it carries a credential,
// even when the file spells the value out. Both are replaced by
// "[redacted]" in every report and log.

// secrets keeps values of a field as secrets. One shorter than
// MinSecretLen is not kept: redacting it would rewrite innocent text,
// the report's structure included, so loading warns that it will be
// written as it is.
func (d *document) secrets(t *Target, field string, values ...string) {
	for _, v := range values {
		switch {
		case v == "":
		case len(v) < MinSecretLen && d.found.under(d.label(field)):
			// A field with an unset variable or an error is short of
			// what it will hold.
		case len(v) < MinSecretLen && len(t.Warnings) >= maxWarnings:
			// Enough said; finding the line of each would cost.
		case len(v) < MinSecretLen:
			w := Finding{File: d.name, Line: d.line(field), Field: d.label(field), Kind: Warning,
				Message: fmt.Sprintf("a secret of %d bytes is too short to redact without rewriting innocent text: it is NOT redacted from reports and logs (use %d bytes or more)", len(v), MinSecretLen)}
			t.Warnings = append(t.Warnings, w.Error())
			d.found.add(w)
		default:
			t.Secrets = append(t.Secrets, v)
		}
	}
}

// maxWarnings caps the warnings a file can produce.
const maxWarnings = 20

// secretHeaderWords are the name fragments of credential headers
// (Authorization, Proxy-Authorization, Cookie, X-Api-Key, X-Auth-Token,
// X-Client-Secret, ...).
var secretHeaderWords = []string{"auth", "cookie", "key", "token", "secret", "password", "session", "credential", "signature"}

// minSecretHeaderValue keeps a short literal value such as "1" in a
// header named like a credential from blanking every "1" in a report.
const minSecretHeaderValue = 4

// SecretHeader reports whether a header's value is a credential.
func SecretHeader(name string) bool {
	n := strings.ToLower(name)
	for _, w := range secretHeaderWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// headerSecrets are the parts of a credential header's value to redact:
// the whole value and, for "Scheme credentials" (Bearer, Basic, ...),
// the credentials alone, which a server may echo without the scheme.
func headerSecrets(value string) []string {
	var out []string
	for _, s := range []string{value, credentialsOf(value)} {
		if len(s) >= minSecretHeaderValue {
			out = append(out, s)
		}
	}
	return out
}

func credentialsOf(value string) string {
	scheme, creds, ok := strings.Cut(strings.TrimSpace(value), " ")
	if !ok || strings.ContainsAny(scheme, "=,;") {
		return ""
	}
	return strings.TrimSpace(creds)
}

// userinfoSecrets are what a password in a URL's userinfo turns into:
// the password, and the Basic credentials Go sends for it (base64 of
// user:password), which a server may echo back.
func userinfoSecrets(u *url.URL) []string {
	if u.User == nil {
		return nil
	}
	p, ok := u.User.Password()
	if !ok || p == "" {
		return nil
	}
	basic := base64.StdEncoding.EncodeToString([]byte(u.User.Username() + ":" + p))
	return []string{p, basic}
}
