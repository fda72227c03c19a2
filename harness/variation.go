package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
)

// Variations of a request body that keep its meaning: the fingerprint
// scope check (K3) sends them under the original's key to see which the
// target treats as "the same request".

// ReorderJSON returns body with the top-level members of its JSON object
// in reverse order, byte for byte otherwise. ok is false when body is not
// a JSON object with at least two members (nothing to reorder).
func ReorderJSON(body []byte) (out []byte, ok bool) {
	members, err := jsonMembers(body)
	if err != nil || len(members) < 2 {
		return nil, false
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i := len(members) - 1; i >= 0; i-- {
		b.Write(members[i])
		if i > 0 {
			b.WriteByte(',')
		}
	}
	b.WriteByte('}')
	return b.Bytes(), true
}

// Reindent returns body as indented JSON (or compact, if it already was
// indented that way): the same value, other whitespace. ok is false when
// body is not JSON.
func Reindent(body []byte) (out []byte, ok bool) {
	var b bytes.Buffer
	if err := json.Indent(&b, body, "", "  "); err != nil {
		return nil, false
	}
	if bytes.Equal(b.Bytes(), body) {
		b.Reset()
		if err := json.Compact(&b, body); err != nil {
			return nil, false
		}
	}
	if bytes.Equal(b.Bytes(), body) {
		return nil, false
	}
	return b.Bytes(), true
}

// jsonMembers splits a JSON object into its members, each the raw bytes
// `"name":value` with the value exactly as written.
func jsonMembers(body []byte) ([][]byte, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	var out [][]byte
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		n, _ := json.Marshal(name)
		out = append(out, append(append(n, ':'), v...))
	}
	if len(out) != len(raw) {
		return nil, fmt.Errorf("duplicate member names")
	}
	return out, nil
}

// RequestVariation turns a create attempt into a variation of it: the
// payload changed, or the same request in another form (the property
// sends those). vary says why it does not apply to this target, if so.
type RequestVariation struct {
	Name    string
	Changed bool
	Vary    func(e *Env, a *Attempt, marker string) (notApplicable string, err error)
}

// RequestVariations are K3's variations of a create, the changed payload
// first.
var RequestVariations = []RequestVariation{
	{"changed body field", true, func(e *Env, a *Attempt, marker string) (string, error) {
		b, err := e.Body(marker, "200")
		a.Body, a.Variant = b, "200"
		return "", err
	}},
	{"reordered JSON members", false, func(_ *Env, a *Attempt, _ string) (string, error) {
		b, ok := ReorderJSON(a.Body)
		a.Body = b
		return notJSON(ok, "a JSON object with two or more members"), nil
	}},
	{"other whitespace", false, func(_ *Env, a *Attempt, _ string) (string, error) {
		b, ok := Reindent(a.Body)
		a.Body = b
		return notJSON(ok, "JSON"), nil
	}},
	{"an added query parameter", false, func(_ *Env, a *Attempt, _ string) (string, error) {
		a.Query = "idemspec_variation=1"
		return "", nil
	}},
	{"an added header", false, func(_ *Env, a *Attempt, _ string) (string, error) {
		a.Header = http.Header{"X-Idemspec-Variation": {"1"}}
		return "", nil
	}},
}

// SameRequestVariations are the variations that keep the request's
// meaning: a target must treat them as the same request or refuse them.
func SameRequestVariations() []RequestVariation {
	var out []RequestVariation
	for _, v := range RequestVariations {
		if !v.Changed {
			out = append(out, v)
		}
	}
	return out
}

func notJSON(ok bool, what string) string {
	if ok {
		return ""
	}
	return "the create body is not " + what
}
