package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
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
