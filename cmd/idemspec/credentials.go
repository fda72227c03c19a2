package main

import (
	"encoding/base64"
	"net/http"
	"strings"
)

// credentials are the secrets a request of the program under test
// carries: Authorization and Proxy-Authorization (the whole value, the
// credentials after the scheme, and a Basic pair's password, which a
// URL's userinfo becomes), every cookie's value, and the values of the
// headers named (those the target file sends its own credentials in,
// such as X-Api-Key). The idempotency key is never among them: it is
// the evidence.
func credentials(h http.Header, named []string) []string {
	var out []string
	for _, name := range []string{"Authorization", "Proxy-Authorization"} {
		for _, v := range h.Values(name) {
			out = append(out, v)
			scheme, creds, ok := strings.Cut(strings.TrimSpace(v), " ")
			if !ok {
				continue
			}
			creds = strings.TrimSpace(creds)
			out = append(out, creds)
			if strings.EqualFold(scheme, "Basic") {
				if b, err := base64.StdEncoding.DecodeString(creds); err == nil {
					if _, password, ok := strings.Cut(string(b), ":"); ok {
						out = append(out, password)
					}
				}
			}
		}
	}
	for _, v := range h.Values("Cookie") {
		for _, c := range strings.Split(v, ";") {
			if _, value, ok := strings.Cut(strings.TrimSpace(c), "="); ok {
				out = append(out, value)
			}
		}
	}
	for _, name := range named {
		out = append(out, h.Values(name)...)
	}
	return out
}
