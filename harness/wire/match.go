package wire

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/http"
	"path"
	"slices"
	"strings"
)

// Kind is what an operation's request does: create a resource, or look
// one up by its key.
type Kind string

const (
	Create Kind = "create"
	Lookup Kind = "lookup"
)

// Operation is one call of the API the interposer recognises.
type Operation struct {
	// Name is the operation's name in the target file ("" for a file
	// with one create).
	Name string
	Kind Kind
	// Method is the request's method (POST when empty).
	Method string
	// Path is the path template as the file writes it, below the API's
	// base path: a segment holding {{...}} or {...} matches any one
	// segment; a query string in it is ignored.
	Path string
	// KeyOf reads the idempotency key where the file places it, and the
	// body with the key put back to a slot (so that two requests of one
	// payload under two keys hash alike). nil: the request has no key.
	KeyOf func(r *http.Request, body []byte) (key string, payload []byte, found bool)
	// IDOf reads the resource id from an answer (the file's id_field);
	// nil or "" when there is none.
	IDOf func(answer []byte) string
}

func (o Operation) method() string {
	if o.Method == "" {
		return http.MethodPost
	}
	return o.Method
}

// matches says whether a request's method and path (below the base
// path) are this operation's.
func (o Operation) matches(method, path string) bool {
	if !strings.EqualFold(method, o.method()) {
		return false
	}
	tmpl, _, _ := strings.Cut(o.Path, "?")
	want := segments(tmpl)
	got := segments(path)
	if len(want) != len(got) {
		return false
	}
	for i, w := range want {
		if isPlaceholder(w) {
			if got[i] == "" {
				return false
			}
			continue
		}
		if w != got[i] {
			return false
		}
	}
	return true
}

func segments(p string) []string {
	return strings.Split(strings.Trim(p, "/"), "/")
}

// isPlaceholder says whether a template segment stands for any value:
// a Go template ({{.Key}}, {{.Setup.order.id}}) or an OpenAPI-style
// parameter ({id}).
func isPlaceholder(seg string) bool {
	return strings.Contains(seg, "{{") || (strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}"))
}

// matchUnder is match for a request's whole path on an API served
// under base (a path without its trailing slash, or ""): a path outside
// base matches nothing. The path is matched as an HTTP server routes
// it, its dot segments resolved and its empty segments dropped
// (/x/../charges, /./charges and //charges are /charges): a program
// that sends its retries on such a path must not go unjudged, and a
// server that does not route them refuses them, creating nothing.
func matchUnder(ops []Operation, base, method, p string) (Operation, bool) {
	path := routed(p)
	if base = strings.TrimSuffix(routed(base), "/"); base != "" {
		if !strings.HasPrefix(path, base+"/") && path != base {
			return Operation{}, false
		}
		path = strings.TrimPrefix(path, base)
	}
	return match(ops, method, path)
}

// match is the first operation a request matches, creates before
// look-ups (a look-up's template is wider), or false.
func match(ops []Operation, method, path string) (Operation, bool) {
	for _, kind := range []Kind{Create, Lookup} {
		for _, o := range ops {
			if o.Kind == kind && o.matches(method, path) {
				return o, true
			}
		}
	}
	return Operation{}, false
}

// routed is a request's path as a server routes it: dot segments
// resolved, repeated slashes one, a trailing slash kept.
func routed(p string) string {
	if p == "" {
		return "/"
	}
	out := path.Clean("/" + p)
	if strings.HasSuffix(p, "/") && out != "/" {
		out += "/"
	}
	return out
}

// resembles names the first create operation of the request's method
// whose key the request carries where the operation places it ("" none).
func resembles(ops []Operation, r *http.Request, body []byte) string {
	for _, o := range ops {
		if o.Kind != Create || o.KeyOf == nil || !strings.EqualFold(r.Method, o.method()) {
			continue
		}
		if key, _, found := o.KeyOf(r, body); found && key != "" {
			return o.Name
		}
	}
	return ""
}

// shape is the sorted top-level member names of a JSON object body,
// comma-separated; "" for any other body or an empty object.
func shape(body []byte) string {
	b := bytes.TrimSpace(body)
	if len(b) == 0 || b[0] != '{' {
		return ""
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(b, &members) != nil {
		return ""
	}
	return strings.Join(slices.Sorted(maps.Keys(members)), ",")
}
