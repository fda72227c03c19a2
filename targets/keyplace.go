package targets

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/idemspec/idemspec/internal/exactjson"
)

// Where a target takes its idempotency key (key.in).
const (
	KeyInHeader = "header" // a request header: Idempotency-Key unless named
	KeyInBody   = "body"   // a field of the JSON body, where {{.Key}} stands
	KeyInQuery  = "query"  // a query parameter of the create path
)

// DefaultKeyHeader is the key's header when the file names none.
const DefaultKeyHeader = "Idempotency-Key"

// keySlot is what {{.Key}} renders to in a create body until a key is
// placed there: the harness renders a payload once, then sends those
// bytes under many keys (or none). It reads as the template it stands
// for in a report, and stays the same through the reorderings and
// reindentings of K3, being a JSON string's content.
const keySlot = "{{.Key}}"

// bodyData is what a create body template is rendered with.
type bodyData struct {
	Payload
	Key   string
	Setup map[string]any
}

// keyPlace reads key.in and key.name (and the older key.header) into k,
// and checks the create body against them: a body key needs {{.Key}} as
// one string of the JSON body, at the dotted path key.name names (or
// wherever it stands when key.name is left out); any other place must
// leave {{.Key}} out of the body, or the key would travel twice.
func (d *document) keyPlace(s keySpec, k *Key, c Create) error {
	k.In = or(s.In, KeyInHeader)
	if s.Header != "" {
		if k.In != KeyInHeader {
			return d.errorf("key.header", "only with in: header (in is %s): name the %s with key.name", k.In, keyNameIs(k.In))
		}
		if s.Name != "" && s.Name != s.Header {
			return d.errorf("key.header", "%q and key.name %q disagree: keep key.name", s.Header, s.Name)
		}
	}
	k.Name = or(s.Name, s.Header)
	var probe string
	if c.Body != nil { // nil: create.body's own error was kept; judge the key's fields alone
		var err error
		if probe, err = render(c.Body, bodyData{Payload{Marker: probeMarker, Variant: "1"}, probeKey, c.setupProbe}); err != nil {
			return d.errorf("create.body", "%v", templateReason(err))
		}
	}
	inBody := strings.Contains(probe, probeKey)
	switch k.In {
	case KeyInHeader:
		k.Name = or(k.Name, DefaultKeyHeader)
		if !ValidHeaderName(k.Name) {
			return d.errorf(or(keyField(s), "key.name"), "%q is not a header name", k.Name)
		}
	case KeyInQuery:
		if k.Name == "" {
			return d.errorf("key.name", "missing: in: query needs the parameter's name, such as idempotency_key")
		}
		if k.Name != url.QueryEscape(k.Name) {
			return d.errorf("key.name", "%q is not a plain query parameter name (letters, digits, - _ .)", k.Name)
		}
	case KeyInBody:
		if !inBody {
			return d.errorf("create.body", "must contain {{.Key}} where the key goes: key.in is body")
		}
		path, err := bodyKeyPath([]byte(probe))
		if err != nil {
			return d.errorf("create.body", "with key.in: body, %v", err)
		}
		if k.Name != "" && k.Name != path {
			return d.errorf("key.name", "%q, but create.body puts {{.Key}} at %q", k.Name, path)
		}
		k.Name = path
		return nil
	default:
		return d.errorf("key.in", "unknown place %q (known: header, body, query)", k.In)
	}
	if inBody {
		return d.errorf("create.body", "holds {{.Key}}, but key.in is %s: the key would travel twice; set key.in: body, or take {{.Key}} out of the body", k.In)
	}
	return nil
}

// keyField is the field a header name came from, for errors.
func keyField(s keySpec) string {
	if s.Header != "" && s.Name == "" {
		return "key.header"
	}
	return ""
}

func keyNameIs(in string) string {
	if in == KeyInBody {
		return "body field (a dotted JSON path)"
	}
	return "query parameter"
}

// bodyKeyPath finds the dotted path of the one string in a JSON body
// that is the probe key.
func bodyKeyPath(body []byte) (string, error) {
	v, err := exactjson.Decode(body)
	if err != nil {
		return "", fmt.Errorf("the body must be JSON, so that the key's field can be found and left out (%v)", err)
	}
	var paths []string
	var walk func(v any, path string, inArray bool) error
	walk = func(v any, path string, inArray bool) error {
		switch v := v.(type) {
		case map[string]any:
			for name, sub := range v {
				if strings.Contains(name, ".") && strings.Contains(fmt.Sprint(sub), probeKey) {
					return fmt.Errorf("the key's field %q has a dot in its name: a dotted path cannot name it", name)
				}
				if err := walk(sub, strings.TrimPrefix(path+"."+name, "."), inArray); err != nil {
					return err
				}
			}
		case []any:
			for _, sub := range v {
				if err := walk(sub, path, true); err != nil {
					return err
				}
			}
		case string:
			if v == probeKey {
				if inArray {
					return fmt.Errorf("{{.Key}} stands in an array: put it in an object's field")
				}
				paths = append(paths, path)
			} else if strings.Contains(v, probeKey) {
				return fmt.Errorf("{{.Key}} must be a whole JSON string (\"{{.Key}}\"), not part of %q", strings.ReplaceAll(v, probeKey, "{{.Key}}"))
			}
		}
		return nil
	}
	if err := walk(v, "", false); err != nil {
		return "", err
	}
	switch {
	case len(paths) == 0:
		return "", fmt.Errorf("{{.Key}} must be a JSON string, in quotes (\"{{.Key}}\")")
	case len(paths) > 1:
		return "", fmt.Errorf("{{.Key}} stands %d times (%s): the key goes in one field", len(paths), strings.Join(paths, ", "))
	case paths[0] == "":
		return "", fmt.Errorf("{{.Key}} is the whole body: put it in an object's field")
	}
	return paths[0], nil
}

// NewCreateWith builds one create attempt carrying keys in the declared
// place: none sends no key at all (the header, the body field or the
// parameter is left out), one is the key (even ""), and two or more are a
// duplicated key, which only a header can carry as such (elsewhere the
// first is sent).
func (t *Target) NewCreateWith(ctx context.Context, keys []string, body []byte) (*http.Request, error) {
	if t.Key.In == KeyInBody {
		var err error
		if body, err = placeBodyKey(body, t.Key.Name, keys); err != nil {
			return nil, err
		}
	}
	path, err := t.createPath(ctx, body)
	if err != nil {
		return nil, err
	}
	u, err := t.pathURL(path)
	if err != nil {
		return nil, fmt.Errorf("create.path: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, t.Create.Method, u, nil)
	if err != nil {
		return nil, err
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	req.GetBody = nil
	t.addHeaders(req)
	req.Header.Set("Content-Type", t.Create.ContentType)
	switch {
	case len(keys) == 0:
	case t.Key.In == KeyInHeader:
		req.Header[http.CanonicalHeaderKey(t.Key.Name)] = keys
	case t.Key.In == KeyInQuery:
		q := url.Values{t.Key.Name: keys}.Encode()
		req.URL.RawQuery = strings.TrimPrefix(req.URL.RawQuery+"&"+q, "&")
	}
	return req, nil
}

// placeBodyKey writes the key into a body rendered with keySlot, or
// leaves the key's member out when there is none.
func placeBodyKey(body []byte, path string, keys []string) ([]byte, error) {
	if len(keys) == 0 {
		out, err := withoutMember(body, strings.Split(path, "."))
		if err != nil {
			return nil, fmt.Errorf("leave the key out of the body: %w", err)
		}
		return out, nil
	}
	quoted, err := json.Marshal(keys[0])
	if err != nil {
		return nil, err
	}
	return bytes.ReplaceAll(body, []byte(keySlot), quoted[1:len(quoted)-1]), nil
}

// KeyOf reads the key a create request carries in the declared place
// (the first, if it carries several), and its body with the key's value
// put back to {{.Key}}, so that two requests of one payload under two
// keys show one payload. found is false when the request carries none.
func (t *Target) KeyOf(req *http.Request, body []byte) (key string, payload []byte, found bool) {
	switch t.Key.In {
	case KeyInBody:
		v, err := exactjson.Decode(body)
		if err != nil {
			return "", body, false
		}
		for _, part := range strings.Split(t.Key.Name, ".") {
			m, ok := v.(map[string]any)
			if !ok {
				return "", body, false
			}
			if v, ok = m[part]; !ok {
				return "", body, false
			}
		}
		key, ok := v.(string)
		if !ok {
			return "", body, false
		}
		quoted, _ := json.Marshal(key)
		return key, bytes.Replace(body, quoted, []byte(`"`+keySlot+`"`), 1), true
	case KeyInQuery:
		vals, ok := req.URL.Query()[t.Key.Name]
		if !ok || len(vals) == 0 {
			return "", body, false
		}
		return vals[0], body, true
	}
	vals := req.Header.Values(t.Key.Name)
	if len(vals) == 0 {
		return "", body, false
	}
	return vals[0], body, true
}

// InHeader says whether the key travels in a header (so that a request
// can carry it twice, as a duplicated header).
func (k Key) InHeader() bool { return k.In == "" || k.In == KeyInHeader }

// Place says where the key goes, for people: "header Idempotency-Key",
// "body field idempotency_key", "query parameter idempotency_key".
func (k Key) Place() string {
	switch k.In {
	case KeyInBody:
		return "body field " + k.Name
	case KeyInQuery:
		return "query parameter " + k.Name
	}
	return "header " + k.Name
}

// withoutMember returns a JSON object without the member at path (a
// member of nested objects for a longer path), byte for byte otherwise.
func withoutMember(obj []byte, path []string) ([]byte, error) {
	start, end, err := memberSpan(obj, path)
	if err != nil {
		return nil, err
	}
	return append(append([]byte{}, obj[:start]...), obj[end:]...), nil
}

// memberSpan finds the bytes to cut to remove the member at path from a
// JSON object: the member and the comma that joins it to a neighbour.
func memberSpan(obj []byte, path []string) (start, end int, err error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return 0, 0, fmt.Errorf("no object holds %s", path[0])
	}
	open := int(dec.InputOffset())
	prevEnd := open
	for i := 0; dec.More(); i++ {
		tok, err := dec.Token()
		if err != nil {
			return 0, 0, err
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return 0, 0, err
		}
		valEnd := int(dec.InputOffset())
		if tok != path[0] {
			prevEnd = valEnd
			continue
		}
		if len(path) > 1 {
			valStart := valEnd - len(raw)
			s, e, err := memberSpan(raw, path[1:])
			return valStart + s, valStart + e, err
		}
		if i > 0 {
			return prevEnd, valEnd, nil // the comma before it, and it
		}
		if comma := bytes.IndexByte(obj[valEnd:], ','); dec.More() && comma >= 0 {
			return open, valEnd + comma + 1, nil // it, and the comma after it
		}
		return open, valEnd, nil
	}
	return 0, 0, fmt.Errorf("no member %s", path[0])
}
